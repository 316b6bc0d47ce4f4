import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { toAgentError } from '../agent/agent-error.ts';
import { loadMemberDockerProjects } from '../queries/projects.ts';
import { listProjectContainers } from '../queries/user-dockers.ts';
import { syncAuthorizedKeys } from './sync-authorized-keys.ts';

/**
 * After a user's SSH keys changed: puts the new key sets into the containers of the user's
 * approved projects with an ssh image (one ListContainers call per dev server to see which have a container,
 * then one SetAuthorizedKeys per such project with all its members' keys). Never throws:
 * the key change itself stands; a container that missed it gets its keys on the next change
 * or re-creation. Resolves when done (tests wait for it; routes need not).
 */
export async function syncUserSshKeys(deps: { knex: Knex; agents: AgentFleet; logger: Logger }, userId: number): Promise<void> {
  try {
    const projects = (await loadMemberDockerProjects(deps.knex, userId)).filter((project) => project.ssh && project.validated === true);
    if (projects.length === 0) return;
    // A dev server that does not answer is skipped (logged); the others get the keys.
    const { containers } = await listProjectContainers(deps, projects);
    await Promise.all(projects.filter((project) => containers.has(project.id)).map((project) => syncAuthorizedKeys(deps, project)));
  } catch (error) {
    deps.logger.warn({ userId, error: toAgentError(error).message }, 'ssh keys not synced to containers');
  }
}
