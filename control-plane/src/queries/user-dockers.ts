import type { ContainerView } from '../agent/container-views.ts';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { AppServices } from '../app-context.ts';
import { AWAITING_APPROVAL, NOT_CREATED, REJECTED, STATUS_TEXT, UNREACHABLE } from '../lib/container-states.ts';
import { agentFailure, isUnreachable } from '../agent/agent-failure.ts';
import { loadMemberDockerProjects, type DockerProjectRow } from './projects.ts';

/** What is known about the project's container: Docker's view, or one of the product states. */
export type ContainerSituation =
  | { kind: 'container'; container: ContainerView; sshCommand: string | null }
  | { kind: 'state'; state: keyof typeof STATUS_TEXT };

/** A project with what is known about its container: one card of the dockers page, before presenting. */
export interface UserDockerCard {
  project: DockerProjectRow;
  situation: ContainerSituation;
}

/** A product state for a project without a Docker state to show (none for approved projects). */
function productState(project: DockerProjectRow): typeof AWAITING_APPROVAL | typeof REJECTED | null {
  if (project.validated === null) return AWAITING_APPROVAL;
  if (project.validated === false) return REJECTED;
  return null;
}

/** What the card of one project shows given its container (or none): asks for its SSH command when it has one. */
export async function containerSituationOf(deps: { sshCommands: AppServices['sshCommands'] }, project: DockerProjectRow, container: ContainerView | null): Promise<ContainerSituation> {
  const state = productState(project);
  if (state) return { kind: 'state', state };
  if (!container) return { kind: 'state', state: NOT_CREATED };
  const sshCommand = project.ssh ? await deps.sshCommands.command(container, project.host) : null;
  return { kind: 'container', container, sshCommand };
}

/**
 * The containers of these projects, one ListContainers call per dev server (at once). A server
 * whose agent does not answer leaves its projects out of `containers` and in `unreachable`.
 */
export async function listProjectContainers(
  deps: { agents: AgentFleet; logger: Logger },
  projects: ReadonlyArray<{ id: number; host: string | null }>,
): Promise<{ containers: Map<number, ContainerView>; unreachable: Set<number> }> {
  const byHost = new Map<string, number[]>();
  for (const project of projects) {
    const host = deps.agents.link(project.host).name;
    const ids = byHost.get(host);
    if (ids) ids.push(project.id);
    else byHost.set(host, [project.id]);
  }
  const containers = new Map<number, ContainerView>();
  const unreachable = new Set<number>();
  await Promise.all(
    [...byHost].map(async ([host, projectIds]) => {
      try {
        for (const container of await deps.agents.link(host).client.containers.listContainers({ projectIds })) containers.set(container.projectId, container);
      } catch (error) {
        if (!isUnreachable(error)) throw agentFailure(error);
        deps.logger.warn({ err: error, host }, 'agent unreachable while listing containers');
        for (const id of projectIds) unreachable.add(id);
      }
    }),
  );
  return { containers, unreachable };
}

/**
 * GET /api/user/dockers: the user's projects, newest first, each with its container's state.
 * One ListContainers call per dev server for all approved projects on it; when a server's agent
 * does not answer, its approved projects show 'onbereikbaar' (never 'exited') and the others
 * their product state.
 */
export async function loadUserDockerCards(deps: { knex: Knex; agents: AgentFleet; logger: Logger; sshCommands: AppServices['sshCommands'] }, userId: number): Promise<UserDockerCard[]> {
  const projects = await loadMemberDockerProjects(deps.knex, userId);
  const approved = projects.filter((project) => project.validated === true);
  const { containers: byProject, unreachable } = await listProjectContainers(deps, approved);
  const sshCommands = await deps.sshCommands.commands(
    projects
      .filter((project) => project.ssh && byProject.has(project.id))
      .map((project) => ({ container: byProject.get(project.id) as ContainerView, host: project.host })),
  );
  return projects.map((project): UserDockerCard => {
    const state = productState(project);
    if (state) return { project, situation: { kind: 'state', state } };
    if (unreachable.has(project.id)) return { project, situation: { kind: 'state', state: UNREACHABLE } };
    const container = byProject.get(project.id);
    if (!container) return { project, situation: { kind: 'state', state: NOT_CREATED } };
    return { project, situation: { kind: 'container', container, sshCommand: sshCommands.get(project.id) ?? null } };
  });
}
