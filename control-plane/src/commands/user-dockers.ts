import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { ContainerActionName, ContainerView } from '../agent/container-views.ts';
import { HttpError } from '../errors.ts';
import { presentUserDocker, type UserDockerJson } from '../presenters/present-user-docker.ts';
import { agentFailure, callAgent, isUnreachable } from '../lib/agent-failure.ts';
import { ACTION_BUSY, AWAITING_APPROVAL, NOT_CREATED, REJECTED, UNREACHABLE } from './container-states.ts';
import { containerNotices } from '../realtime/container-notices.ts';
import { type DockerProjectRow, loadMemberDockerProjects, mayHaveContainer, sshKeysOf } from '../queries/projects.ts';
import type { SshCommandResolver } from './ssh-command.ts';
import type { RealtimeTrigger } from '../realtime/container-notices.ts';

export interface ContainerCommandDeps {
  knex: Knex;
  agents: AgentFleet;
  realtime: RealtimeTrigger;
  logger: Logger;
  sshCommands: SshCommandResolver;
}

export const NOT_APPROVED_MESSAGE = 'Dit project is nog niet goedgekeurd.';
export const NO_IMAGE_MESSAGE = 'Dit project heeft nog geen image. Vraag een docent er een te kiezen.';

/** A product state for a project without a Docker state to show (none for approved projects). */
function productState(project: DockerProjectRow): typeof AWAITING_APPROVAL | typeof REJECTED | null {
  if (project.validated === null) return AWAITING_APPROVAL;
  if (project.validated === false) return REJECTED;
  return null;
}

/** The card of one project given its container (or none). */
export async function userDockerOf(deps: ContainerCommandDeps, project: DockerProjectRow, container: ContainerView | null): Promise<UserDockerJson> {
  const state = productState(project);
  if (state) return presentUserDocker(project, { kind: 'state', state });
  if (!container) return presentUserDocker(project, { kind: 'state', state: NOT_CREATED });
  const sshCommand = project.ssh ? await deps.sshCommands.command(container, project.host) : null;
  return presentUserDocker(project, { kind: 'container', container, sshCommand });
}

/**
 * The containers of these projects, one ListContainers call per dev server (at once). A server
 * whose agent does not answer leaves its projects out of `containers` and in `unreachable`.
 */
export async function listProjectContainers(
  deps: Pick<ContainerCommandDeps, 'agents' | 'logger'>,
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
export async function listUserDockers(deps: ContainerCommandDeps, userId: number): Promise<UserDockerJson[]> {
  const projects = await loadMemberDockerProjects(deps.knex, userId);
  const approved = projects.filter((project) => project.validated === true);
  const { containers: byProject, unreachable } = await listProjectContainers(deps, approved);
  const sshCommands = await deps.sshCommands.commands(
    projects
      .filter((project) => project.ssh && byProject.has(project.id))
      .map((project) => ({ container: byProject.get(project.id) as ContainerView, host: project.host })),
  );
  return projects.map((project) => {
    const state = productState(project);
    if (state) return presentUserDocker(project, { kind: 'state', state });
    if (unreachable.has(project.id)) return presentUserDocker(project, { kind: 'state', state: UNREACHABLE });
    const container = byProject.get(project.id);
    if (!container) return presentUserDocker(project, { kind: 'state', state: NOT_CREATED });
    return presentUserDocker(project, { kind: 'container', container, sshCommand: sshCommands.get(project.id) ?? null });
  });
}

/** Sends a DockerEventSent (once: the same message as the last on that channel is left out); a realtime failure is logged, never fatal. */
export async function notifyContainer(deps: Pick<ContainerCommandDeps, 'realtime' | 'logger'>, name: string, message: string): Promise<void> {
  await containerNotices(deps.realtime, deps.logger).send(name, message);
}

/**
 * Puts the members' SSH keys (their union) into the project's container. Failures are logged:
 * a container without keys locks SSH, it does not break the project.
 */
export async function syncAuthorizedKeys(deps: Pick<ContainerCommandDeps, 'knex' | 'agents' | 'logger'>, project: Pick<DockerProjectRow, 'id' | 'host' | 'users'>): Promise<void> {
  try {
    const keys = await sshKeysOf(deps.knex, project.users.map((user) => user.id));
    await deps.agents.forHost(project.host).ssh.setAuthorizedKeys(project.id, keys);
  } catch (error) {
    deps.logger.warn({ err: error, projectId: project.id }, 'setting authorized keys failed');
  }
}

/**
 * POST /api/user/dockers: creates the project's container (idempotent at the agent) from its
 * image option, limits left to the agent's defaults; then the members' SSH keys for ssh images.
 */
export async function createUserDocker(deps: ContainerCommandDeps, project: DockerProjectRow): Promise<UserDockerJson> {
  if (project.validated !== true) throw new HttpError(409, NOT_APPROVED_MESSAGE);
  if (!project.image) throw new HttpError(409, NO_IMAGE_MESSAGE);
  const memberIds = project.users.map((user) => user.id);
  const { container } = await callAgent(() =>
    deps.agents.forHost(project.host).containers.createContainer({
      projectId: project.id,
      name: project.name,
      domain: project.domain,
      image: project.image as string,
      ownerUserId: memberIds[0] ?? 0,
      memberUserIds: memberIds,
      ssh: project.ssh,
      wordpress: project.wordpress,
      capabilities: project.capabilities,
    }),
  );
  if (project.ssh) await syncAuthorizedKeys(deps, project);
  return userDockerOf(deps, project, container);
}

/** PUT /api/user/dockers/{id}?action=: marks the card busy first, then asks the agent. */
export async function changeUserDocker(deps: ContainerCommandDeps, project: DockerProjectRow, action: ContainerActionName): Promise<UserDockerJson> {
  await notifyContainer(deps, project.name, ACTION_BUSY);
  const container = await callAgent(() => deps.agents.forHost(project.host).containers.changeContainerState({ projectId: project.id }, action));
  return userDockerOf(deps, project, container);
}

/**
 * Before a project row is deleted: its container goes first. The agent not answering → 503 and
 * the caller keeps the project (nothing is deleted because the agent was down). A project that
 * can have no container skips the agent.
 */
export async function removeProjectContainer(
  deps: Pick<ContainerCommandDeps, 'knex' | 'agents'>,
  project: { id: number; host: string | null; validated: boolean | null },
): Promise<boolean> {
  if (!(await mayHaveContainer(deps.knex, project))) return false;
  const { removed } = await callAgent(() => deps.agents.forHost(project.host).containers.removeContainer({ projectId: project.id }));
  return removed;
}
