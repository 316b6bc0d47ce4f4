import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentClient } from '../agent/agent-client.ts';
import { toAgentError } from '../agent/agent-error.ts';
import { loadMemberDockerProjects } from './docker-projects.ts';
import { syncAuthorizedKeys } from './user-dockers.ts';

/**
 * After a user's SSH keys changed: puts the new key sets into the containers of the user's
 * approved projects with an ssh image (one ListContainers call to see which have a container,
 * then one SetAuthorizedKeys per such project with all its members' keys). Never throws:
 * the key change itself stands; a container that missed it gets its keys on the next change
 * or re-creation. Resolves when done (tests wait for it; routes need not).
 */
export async function syncUserSshKeys(deps: { knex: Knex; agent: AgentClient; logger: Logger }, userId: number): Promise<void> {
  try {
    const projects = (await loadMemberDockerProjects(deps.knex, userId)).filter((project) => project.ssh && project.validated === true);
    if (projects.length === 0) return;
    const containers = await deps.agent.containers.list({ projectIds: projects.map((project) => project.id) });
    const withContainer = new Set(containers.map((container) => container.projectId));
    await Promise.all(projects.filter((project) => withContainer.has(project.id)).map((project) => syncAuthorizedKeys(deps, project)));
  } catch (error) {
    deps.logger.warn({ userId, error: toAgentError(error).message }, 'ssh keys not synced to containers');
  }
}
