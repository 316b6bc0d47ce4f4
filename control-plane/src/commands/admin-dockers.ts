import type { Knex } from 'knex';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import type { ContainerActionName, ContainerView } from '../agent/container-views.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { forbidden, HttpError, notFound } from '../errors.ts';
import { mayRunProjectContainer, notRunnableMessage } from '../policies/container-policy.ts';
import { presentAdminDocker, type AdminDockerJson } from '../presenters/present-admin-docker.ts';
import { agentFailure, callAgent, isUnreachable } from '../lib/agent-failure.ts';
import { UNREACHABLE } from './container-states.ts';
import { loadDockerProjects } from '../queries/projects.ts';
import { loadScreenshotStates, type ThumbnailCapturer } from './capture-thumbnail.ts';
import type { BulkResult, ScreenshotState } from '@devplein/contract/dockers';
import { PROJECT_NAME_PATTERN } from '@devplein/contract/validation/projectRequest';

export interface AdminDockerDeps {
  knex: Knex;
  agents: AgentFleet;
  /** The site thumbnail queue (capture state per row, 'ververs screenshot'); rows show no capture in flight without it. */
  thumbnails?: ThumbnailCapturer;
}

const CONTAINER_NOT_FOUND = 'Deze container bestaat niet.';
export const ALREADY_OWNED_MESSAGE = 'Deze container hoort al bij een project.';
export const NOT_A_PROJECT_NAME_MESSAGE =
  'Deze container kan geen project worden: een projectnaam heeft alleen kleine letters (a-z) en streepjes en begint met een letter. Hernoem de container eerst.';

/** A container and the dev server it is on. */
interface PlacedContainer {
  container: ContainerView;
  host: string;
}

/**
 * The project (and its first member) of each container: by the project-id label, else by name;
 * plus the project's site screenshot state.
 */
async function presentAll(deps: AdminDockerDeps, placed: PlacedContainer[]): Promise<AdminDockerJson[]> {
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
    const project = (container.projectId > 0 ? byId.get(container.projectId) : undefined) ?? byName.get(container.name) ?? null;
    return presentAdminDocker(container, project ? { id: project.id, owner: project.users[0] ?? null } : null, host);
  });
  const states = await loadScreenshotStates(
    knex,
    deps.thumbnails,
    rows.flatMap((row) => (row.projectId === null ? [] : [row.projectId])),
  );
  return rows.map((row) => ({ ...row, screenshot: row.projectId === null ? null : (states.get(row.projectId) ?? null) }));
}

/** Every container of one dev server (unmanaged ones included); rejects with the agent's error. */
async function listLink(link: AgentLink): Promise<PlacedContainer[]> {
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
    } satisfies ContainerView,
  }));
}

/**
 * GET /api/admin/dockers: every container of every dev server, unmanaged ones included (asked at
 * once). A server that does not answer shows its projects as 'onbereikbaar'; when none answers
 * the answer is the agent's 503.
 */
export async function listAdminDockers(deps: AdminDockerDeps): Promise<AdminDockerJson[]> {
  const answers = await Promise.allSettled(deps.agents.links.map((link) => listLink(link)));
  const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
  if (failures.length === answers.length) throw agentFailure(failures[0]);
  const fatal = failures.find((failure) => !isUnreachable(failure));
  if (fatal !== undefined) throw agentFailure(fatal);
  const placed = await Promise.all(
    answers.map((answer, index) => (answer.status === 'fulfilled' ? answer.value : unreachableRows(deps, deps.agents.links[index] as AgentLink))),
  );
  return presentAll(deps, placed.flat());
}

/** The project of this container name (its dev server and decision); undefined when no project has it. */
function projectOfName(deps: AdminDockerDeps, name: string): Promise<{ host: string | null; validated: boolean | null } | undefined> {
  return deps.knex('projects').where('name', name).first<{ host: string | null; validated: boolean | null } | undefined>('host', 'validated');
}

/** The dev server of the project of this name; null when no project has it. */
async function projectLink(deps: AdminDockerDeps, name: string): Promise<AgentLink | null> {
  const project = await projectOfName(deps, name);
  return project ? deps.agents.link(project.host) : null;
}

/** The container of this name on these servers (404 when none has it; an unanswered server makes it a 503: it could be there). */
async function searchContainer(links: readonly AgentLink[], name: string): Promise<PlacedContainer & { link: AgentLink }> {
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
async function linkOfContainer(deps: AdminDockerDeps, name: string): Promise<AgentLink> {
  return (await projectLink(deps, name)) ?? (await searchContainer(deps.agents.links, name)).link;
}

export async function adminDockerOf(deps: AdminDockerDeps, placed: PlacedContainer): Promise<AdminDockerJson> {
  const [row] = await presentAll(deps, [placed]);
  return row as AdminDockerJson;
}

/** A lifecycle action on any container, recorded in the audit trail. */
export async function changeAdminDocker(deps: AdminDockerDeps, actorId: number, name: string, action: ContainerActionName): Promise<AdminDockerJson> {
  const project = await projectOfName(deps, name);
  // Admins too: a project that is not approved cannot run (approve it first).
  if (project && !mayRunProjectContainer(project, action)) throw forbidden(notRunnableMessage(project.validated));
  const link = project ? deps.agents.link(project.host) : (await searchContainer(deps.agents.links, name)).link;
  const container = await callAgent(() => link.client.containers.changeContainerState({ name }, action));
  if (!container) throw notFound(CONTAINER_NOT_FOUND);
  await recordAudit(deps.knex, {
    actorId,
    action: `container.${action}`,
    subjectType: 'container',
    subjectId: name,
    after: { state: container.state, status: container.status },
  });
  return adminDockerOf(deps, { container, host: link.name });
}

/** Removes any container (its project, if any, stays: 'Nog niet gecreëerd'), recorded in the audit trail. */
export async function removeAdminDocker(deps: AdminDockerDeps, actorId: number, name: string): Promise<{ removed: boolean }> {
  const link = await linkOfContainer(deps, name).catch((error: unknown) => {
    // Removing what is not there (any more) is no error: the answer says nothing was removed.
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  });
  const result = link ? await callAgent(() => link.client.containers.removeContainer({ name })) : { removed: false };
  await recordAudit(deps.knex, { actorId, action: 'container.delete', subjectType: 'container', subjectId: name, after: { removed: result.removed } });
  return result;
}

export type { BulkResult };

/** Runs one action on each container on its own; a failure is that container's result only. */
export async function bulkAdminDockers(deps: AdminDockerDeps, actorId: number, names: string[], action: ContainerActionName | 'delete'): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (const name of names) {
    try {
      if (action === 'delete') {
        const { removed } = await removeAdminDocker(deps, actorId, name);
        results.push(removed ? { name, ok: true } : { name, ok: false, message: CONTAINER_NOT_FOUND });
      } else {
        const row = await changeAdminDocker(deps, actorId, name, action);
        results.push({ name, ok: true, State: row.State, Status: row.Status });
      }
    } catch (error) {
      const mapped = agentFailure(error);
      const message = mapped instanceof HttpError ? mapped.message : 'Er ging iets mis met deze container.';
      results.push({ name, ok: false, message });
    }
  }
  return results;
}

/**
 * Adopts an unmanaged container: a project row named after it (approved, on the dev server the
 * container is on, domain `{name}.{that server's site domain}`, the user as only member, the image
 * option whose reference matches) that the container is linked to by name. 409 when a project
 * already claims it.
 */
export async function adoptAdminDocker(deps: AdminDockerDeps, actorId: number, name: string, userId: number): Promise<AdminDockerJson> {
  const { container, link } = await findContainer(deps, name);
  if (container.managed || container.projectId > 0) throw new HttpError(409, ALREADY_OWNED_MESSAGE);
  // The project takes the container's name, and its domain is made from it: Docker allows names
  // (capitals, '_', '.') that are no project name and no host name label.
  if (!PROJECT_NAME_PATTERN.test(name)) throw new HttpError(422, NOT_A_PROJECT_NAME_MESSAGE, { errors: { name: [NOT_A_PROJECT_NAME_MESSAGE] } });
  const domain = `${name}.${link.siteDomain}`.toLowerCase();
  await insertAdoptedProject(deps, actorId, { container, host: link.name }, domain, userId).catch((error: unknown) => {
    // Two adoptions at once: the unique name/domain of projects decides, the loser gets the 409.
    if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505') throw new HttpError(409, ALREADY_OWNED_MESSAGE);
    throw error;
  });
  return adminDockerOf(deps, { container, host: link.name });
}

async function insertAdoptedProject(deps: AdminDockerDeps, actorId: number, { container, host }: PlacedContainer, domain: string, userId: number): Promise<void> {
  const name = container.name;
  await deps.knex.transaction(async (trx) => {
    const user = await trx('users').where('id', userId).whereNotNull('email_verified_at').whereNull('disabled_at').first('id');
    if (!user) {
      const message = 'Deze gebruiker bestaat niet of is niet geactiveerd.';
      throw new HttpError(422, message, { errors: { user: [message] } });
    }
    const taken = await trx('projects').where('name', name).orWhere('domain', domain).first('id');
    if (taken) throw new HttpError(409, ALREADY_OWNED_MESSAGE);
    const image = await trx('docker_images').where('image', container.image).orderBy('id').first<{ id: number } | undefined>('id');
    const [inserted] = await trx('projects')
      .insert({
        name,
        domain,
        host,
        description: `Bestaande container ${name}, overgenomen door een beheerder.`,
        visible: false,
        docker_image_id: image?.id ?? null,
        validated: true,
        created_by: actorId,
      })
      .returning<{ id: number }[]>('id');
    const projectId = Number(inserted?.id);
    await trx('project_user').insert({ project_id: projectId, user_id: userId, position: 0 });
    await recordAudit(trx, {
      actorId,
      action: 'container.adopt',
      subjectType: 'project',
      subjectId: projectId,
      after: { container: name, user: userId, domain, host, docker_image_id: image?.id ?? null },
    });
  });
}

const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';
export const NOT_RUNNING_MESSAGE = 'Dit project heeft geen draaiende container: er valt niets te fotograferen. Start de container eerst.';

/** A project's site screenshot state (404 for an unknown project). */
export async function screenshotStateOf(deps: AdminDockerDeps, projectId: number): Promise<ScreenshotState> {
  const project = await deps.knex('projects').where('id', projectId).first<{ id: number } | undefined>('id');
  if (!project) throw notFound(PROJECT_NOT_FOUND);
  const states = await loadScreenshotStates(deps.knex, deps.thumbnails, [projectId]);
  return states.get(projectId) as ScreenshotState;
}

/**
 * 'ververs screenshot': queues a capture of the project's site (one that starts after this
 * request: ThumbnailCapturer.capture) and answers at once with the state from just before (inFlight true): a later state with another
 * lastAttemptAt is the outcome; the same lastAttemptAt once inFlight is false means the agent
 * could not run the capture at all (agent or browser down: nothing recorded). 404 for an unknown project, 409 when the
 * agent says the project has no running container, 503 when the agent does not answer.
 */
export async function requestScreenshot(deps: AdminDockerDeps & { thumbnails: ThumbnailCapturer }, actorId: number, projectId: number): Promise<ScreenshotState> {
  const project = await deps.knex('projects').where('id', projectId).first<{ id: number; name: string; domain: string; host: string | null } | undefined>('id', 'name', 'domain', 'host');
  if (!project) throw notFound(PROJECT_NOT_FOUND);
  // A request that shares a capture already asked for needs no checks of its own.
  if (!deps.thumbnails.wouldJoin(projectId)) {
    const containers = await callAgent(() => deps.agents.forHost(project.host).containers.listContainers({ projectIds: [projectId] }));
    const running = containers.some((container) => container.projectId === projectId && container.state === 'running');
    if (!running) throw new HttpError(409, NOT_RUNNING_MESSAGE);
    await recordAudit(deps.knex, { actorId, action: 'thumbnail.capture', subjectType: 'project', subjectId: projectId, after: { domain: project.domain } });
  }
  // The state as it was when the capture was asked for (so a caller can tell a new attempt by
  // lastAttemptAt), with the capture now in flight.
  const before = await screenshotStateOf(deps, projectId);
  deps.thumbnails.capture(projectId).catch(() => undefined);
  return { ...before, inFlight: true };
}
