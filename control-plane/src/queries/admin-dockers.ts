import type { Knex } from 'knex';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import type { ContainerView } from '../agent/container-views.ts';
import { notFound } from '../errors.ts';
import { agentFailure, isUnreachable } from '../agent/agent-failure.ts';
import { UNREACHABLE } from '../lib/container-states.ts';
import type { AppServices } from '../app-context.ts';
import { loadScreenshotStates } from './thumbnails.ts';
import { loadDockerProjects } from './projects.ts';
import type { ScreenshotState } from '@devplein/contract/dockers';
import { loadDeploySummaries, type DeployRow } from './deploys.ts';

export interface AdminDockerDeps {
  knex: Knex;
  agents: AgentFleet;
  /** The site thumbnail queue (capture state per row, 'ververs screenshot'); rows show no capture in flight without it. */
  thumbnails?: AppServices['thumbnails'];
}

export const CONTAINER_NOT_FOUND = 'Deze container bestaat niet.';
const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';

/** A container and the dev server it is on. */
export interface PlacedContainer {
  container: ContainerView;
  host: string;
}

/** One row of the admin dockers table before presenting: the container, its project (and first member), its site screenshot state. */
export interface AdminDockerRow extends PlacedContainer {
  project: { id: number; owner: { id: number; name: string } | null } | null;
  screenshot: ScreenshotState | null;
  /** The deploy that put the site there last (project rows; null when none), undefined for rows without a project. */
  deployed?: DeployRow | null;
}

/**
 * The project (and its first member) of each container: by the project-id label, else by name;
 * plus the project's site screenshot state.
 */
export async function loadAdminDockerRows(deps: AdminDockerDeps, placed: PlacedContainer[]): Promise<AdminDockerRow[]> {
  const { knex } = deps;
  const containers = placed.map((each) => each.container);
  const ids = containers.map((container) => container.projectId).filter((id) => id > 0);
  const names = containers.map((container) => container.name);
  const projects =
    containers.length === 0
      ? []
      : await loadDockerProjects(knex, (query) => void query.where((where) => void where.whereIn('p.id', ids).orWhereIn('p.name', names)));
  const byId = new Map(projects.map((project) => [project.id, project]));
  const byName = new Map(projects.map((project) => [project.name, project]));
  const rows = placed.map(({ container, host }) => {
    const found = (container.projectId > 0 ? byId.get(container.projectId) : undefined) ?? byName.get(container.name) ?? null;
    const project = found ? { id: found.id, owner: found.users[0] ?? null } : null;
    // The row's project id as the table shows it (presentAdminDocker): the project's, else the container's label.
    const projectId = project?.id ?? (container.projectId > 0 ? container.projectId : null);
    return { container, host, project, projectId };
  });
  const projectIds = rows.flatMap((row) => (row.projectId === null ? [] : [row.projectId]));
  const [states, deploys] = await Promise.all([loadScreenshotStates(knex, deps.thumbnails, projectIds), loadDeploySummaries(knex, projectIds)]);
  return rows.map(({ projectId, ...row }) => {
    if (projectId === null) return { ...row, screenshot: null };
    return { ...row, screenshot: states.get(projectId) ?? null, deployed: deploys.get(projectId)?.current ?? null };
  });
}

export async function loadAdminDockerRow(deps: AdminDockerDeps, placed: PlacedContainer): Promise<AdminDockerRow> {
  const [row] = await loadAdminDockerRows(deps, [placed]);
  return row as AdminDockerRow;
}

/** Every container of one dev server (unmanaged ones included); rejects with the agent's error. */
export async function listLink(link: AgentLink): Promise<PlacedContainer[]> {
  const containers = await link.client.containers.listContainers({ includeUnmanaged: true });
  return containers.map((container) => ({ container, host: link.name }));
}

/**
 * A dev server that does not answer: its approved projects as rows in 'onbereikbaar' (never
 * 'exited'), so the table still shows what is missing while the other servers are managed.
 */
async function unreachableRows(deps: AdminDockerDeps, link: AgentLink): Promise<PlacedContainer[]> {
  const first = deps.agents.links[0];
  const projects = await loadDockerProjects(deps.knex, (query) => {
    void query.where('p.validated', true).where((where) => {
      void where.where('p.host', link.name);
      if (link === first) void where.orWhereNull('p.host');
    });
  });
  return projects.map((project) => ({
    host: link.name,
    container: {
      // No container id is known; this one keeps rows apart (the table's key).
      id: `onbereikbaar:${link.name}:${project.name}`,
      name: project.name,
      names: [`/${project.name}`],
      image: project.image ?? '',
      state: UNREACHABLE,
      status: `Ontwikkelserver ${link.name} is niet bereikbaar`,
      labels: {},
      projectId: project.id,
      domain: project.domain,
      managed: true,
      createdAt: null,
      autoStop: null,
      exit: null,
    } satisfies ContainerView,
  }));
}

/**
 * GET /api/admin/dockers: every container of every dev server, unmanaged ones included (asked at
 * once). A server that does not answer shows its projects as 'onbereikbaar'; when none answers
 * the answer is the agent's 503.
 */
export async function loadAdminDockers(deps: AdminDockerDeps): Promise<AdminDockerRow[]> {
  const answers = await Promise.allSettled(deps.agents.links.map((link) => listLink(link)));
  const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
  if (failures.length === answers.length) throw agentFailure(failures[0]);
  const fatal = failures.find((failure) => !isUnreachable(failure));
  if (fatal !== undefined) throw agentFailure(fatal);
  const placed = await Promise.all(
    answers.map((answer, index) => (answer.status === 'fulfilled' ? answer.value : unreachableRows(deps, deps.agents.links[index] as AgentLink))),
  );
  return loadAdminDockerRows(deps, placed.flat());
}

/** The project of this container name (its dev server and decision); undefined when no project has it. */
export function projectOfName(deps: AdminDockerDeps, name: string): Promise<{ host: string | null; validated: boolean | null } | undefined> {
  return deps.knex('projects').where('name', name).first<{ host: string | null; validated: boolean | null } | undefined>('host', 'validated');
}

/** The dev server of the project of this name; null when no project has it. */
async function projectLink(deps: AdminDockerDeps, name: string): Promise<AgentLink | null> {
  const project = await projectOfName(deps, name);
  return project ? deps.agents.link(project.host) : null;
}

/** The container of this name on these servers (404 when none has it; an unanswered server makes it a 503: it could be there). */
export async function searchContainer(links: readonly AgentLink[], name: string): Promise<PlacedContainer & { link: AgentLink }> {
  const answers = await Promise.allSettled(links.map((link) => listLink(link)));
  for (const [index, answer] of answers.entries()) {
    const found = answer.status === 'fulfilled' ? answer.value.find((candidate) => candidate.container.name === name) : undefined;
    if (found) return { ...found, link: links[index] as AgentLink };
  }
  const failure = answers.find((answer) => answer.status === 'rejected');
  if (failure) throw agentFailure(failure.reason);
  throw notFound(CONTAINER_NOT_FOUND);
}

/**
 * The dev server and container of this name (404 when none has it). A project's container is
 * looked for on the project's dev server; another name on every server.
 */
export async function findContainer(deps: AdminDockerDeps, name: string): Promise<PlacedContainer & { link: AgentLink }> {
  const link = await projectLink(deps, name);
  return searchContainer(link ? [link] : deps.agents.links, name);
}

/**
 * The dev server to act on for a container name: a project's own server without asking (the
 * agent answers for a missing container itself), another name's by finding it (404 when none
 * has it).
 */
export async function linkOfContainer(deps: AdminDockerDeps, name: string): Promise<AgentLink> {
  return (await projectLink(deps, name)) ?? (await searchContainer(deps.agents.links, name)).link;
}

/** A project's site screenshot state (404 for an unknown project). */
export async function screenshotStateOf(deps: AdminDockerDeps, projectId: number): Promise<ScreenshotState> {
  const project = await deps.knex('projects').where('id', projectId).first<{ id: number } | undefined>('id');
  if (!project) throw notFound(PROJECT_NOT_FOUND);
  const states = await loadScreenshotStates(deps.knex, deps.thumbnails, [projectId]);
  return states.get(projectId) as ScreenshotState;
}

/** The project a screenshot is asked for: where its site is. */
export function loadScreenshotTarget(knex: Knex, projectId: number): Promise<{ id: number; name: string; domain: string; host: string | null } | undefined> {
  return knex('projects').where('id', projectId).first<{ id: number; name: string; domain: string; host: string | null } | undefined>('id', 'name', 'domain', 'host');
}
