import { DOCKER_IMAGES_KEY } from './projects.ts';
import {
  adoptAdminDocker,
  bulkContainerAction as bulkContainerActionEndpoint,
  changeAdminDockerState,
  listAdminDockers,
  removeAdminDocker,
  requestScreenshot as requestScreenshotEndpoint,
  screenshotState,
} from '@devplein/contract/http/admin-dockers';
import { changeImageOption, createImageOption, deleteImageOption, listImageOptions } from '@devplein/contract/http/docker-images';
import { call, useEndpoint } from '../endpoints.ts';
import type { ImageDeployInput, ImageDeploySettings } from '@devplein/contract/validation/imageDeploy';

import { BULK_MAX_NAMES, NO_OWNER, type AdminDocker, type BulkResult, type ContainerAction, type DockerImageOption, type ScreenshotState } from '@devplein/contract/dockers';

export { NO_OWNER, type AdminDocker, type ScreenshotState };

export type AdminContainerAction = ContainerAction;

/** Button labels of spec §2 admin Dockers ('herstart' is unpause there). */
export const ADMIN_ACTION_LABELS: Record<AdminContainerAction, string> = {
  start: 'Start',
  stop: 'Stop',
  pause: 'Pauze',
  restart: 'Restart',
  unpause: 'Herstart',
};

/** Spec §4 admin: Exited → start; Up (not paused) → stop, pause, restart; Paused → unpause. */
export function adminActionsFor(status: string): AdminContainerAction[] {
  if (/paused/i.test(status)) return ['unpause'];
  if (/^up\b/i.test(status.trim())) return ['stop', 'pause', 'restart'];
  if (/exited|created/i.test(status)) return ['start'];
  return [];
}

/** The container name shown and used in paths: the first of Names without the slash. */
export function adminContainerName(docker: Pick<AdminDocker, 'Names' | 'Id'>): string {
  const first = docker.Names[0];
  return first === undefined ? docker.Id.slice(0, 12) : first.replace(/^\//, '');
}

/** Admins: every container. A 503 (dockerserver unreachable) comes back as the swr error. */
export function useAdminDockers() {
  return useEndpoint(listAdminDockers, {}, { shouldRetryOnError: false });
}

/** PUT /api/admin/dockers/{name}?action=…; answers `[AdminDocker]` with the new state. */
export function adminContainerAction(name: string, action: AdminContainerAction): Promise<AdminDocker[]> {
  return call(changeAdminDockerState, { params: { name }, query: { action } });
}

/** DELETE /api/admin/dockers/{name}: removes the container; a project behind it stays ('Nog niet gecreëerd'). */
export function adminDeleteContainer(name: string): Promise<{ removed: boolean }> {
  return call(removeAdminDocker, { params: { name } });
}

/** PUT /api/admin/dockers/{name}/owner {user}: adopts an unmanaged container for that user. */
export function adoptContainer(name: string, userId: number): Promise<AdminDocker> {
  return call(adoptAdminDocker, { params: { name }, body: { user: userId } });
}

/* ---------- site screenshots ---------- */

/**
 * POST /api/admin/dockers/{projectId}/screenshot ('ververs screenshot'): 202 with the state at
 * once (inFlight while the capture runs); 409 without a running container, 503 agent down.
 */
export function requestScreenshot(projectId: number): Promise<ScreenshotState> {
  return call(requestScreenshotEndpoint, { params: { id: projectId } });
}

/** GET the same path: the current state (poll it until inFlight is false). */
export function fetchScreenshotState(projectId: number): Promise<ScreenshotState> {
  return call(screenshotState, { params: { id: projectId } });
}

const dateTime = new Intl.DateTimeFormat('nl-NL', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** '24-11-2026 03:00': the Dutch date and time of an ISO time. */
export function dutchDateTime(iso: string): string {
  return dateTime.format(new Date(iso)).replace(',', '');
}

/** 'laatste screenshot: {datum tijd}' or 'nog geen screenshot'. */
export function screenshotText(state: ScreenshotState | null | undefined): string {
  return state?.capturedAt ? `laatste screenshot: ${dutchDateTime(state.capturedAt)}` : 'nog geen screenshot';
}

/** One container's outcome of a bulk action, and the most names per bulk call: the contract's. */
export { BULK_MAX_NAMES, type BulkResult };

/**
 * POST /api/admin/dockers/bulk: each container on its own; one failure does not stop the rest.
 * A larger selection goes in batches of BULK_MAX_NAMES, one after the other.
 */
export async function bulkContainerAction(names: string[], action: 'start' | 'stop'): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (let start = 0; start < names.length; start += BULK_MAX_NAMES) {
    const batch = names.slice(start, start + BULK_MAX_NAMES);
    const body = await call(bulkContainerActionEndpoint, { body: { names: batch, action } });
    results.push(...body.results);
  }
  return results;
}

/* ---------- table: sorting and filtering ---------- */

export type AdminDockerColumn = 'name' | 'user' | 'image' | 'status';

export type AdminDockerFilters = Record<AdminDockerColumn, string>;

export const EMPTY_FILTERS: AdminDockerFilters = { name: '', user: '', image: '', status: '' };

export interface AdminDockerSort {
  column: AdminDockerColumn;
  direction: 'asc' | 'desc';
}

/** A row with its lowercased column texts, computed once per list so filtering 400 rows stays instant. */
export interface IndexedAdminDocker {
  docker: AdminDocker;
  name: string;
  text: Record<AdminDockerColumn, string>;
}

export function indexAdminDockers(dockers: readonly AdminDocker[]): IndexedAdminDocker[] {
  return dockers.map((docker) => {
    const name = adminContainerName(docker);
    return {
      docker,
      name,
      text: {
        name: name.toLowerCase(),
        user: docker.user.toLowerCase(),
        image: docker.Image.toLowerCase(),
        status: docker.Status.toLowerCase(),
      },
    };
  });
}

const collator = new Intl.Collator('nl', { numeric: true, sensitivity: 'base' });

/** The rows every filter lets through (substring, case-insensitive), in the chosen order. */
export function filterAndSortAdminDockers(
  rows: readonly IndexedAdminDocker[],
  filters: AdminDockerFilters,
  sort: AdminDockerSort,
): IndexedAdminDocker[] {
  const active = (Object.keys(filters) as AdminDockerColumn[])
    .map((column) => [column, filters[column].trim().toLowerCase()] as const)
    .filter(([, value]) => value !== '');
  const kept = active.length === 0 ? [...rows] : rows.filter((row) => active.every(([column, value]) => row.text[column].includes(value)));
  const sign = sort.direction === 'asc' ? 1 : -1;
  return kept.sort((a, b) => sign * collator.compare(a.text[sort.column], b.text[sort.column]) || collator.compare(a.name, b.name));
}

/* ---------- image options ---------- */

/** An image option students pick in the request form, with how many projects use it. */
export type AdminDockerImage = DockerImageOption;

export interface DockerImageInput {
  name: string;
  image: string;
  ssh: boolean;
  wordpress: boolean;
  /** Linux capabilities of the option's containers (names of CONTAINER_CAPABILITIES). */
  capabilities: string[];
}

export function useAdminDockerImages() {
  return useEndpoint(listImageOptions, {});
}

/** The created option; a 422 carries field errors (name, image, …). */
export function createDockerImage(input: DockerImageInput): Promise<AdminDockerImage> {
  return call(createImageOption, { body: input });
}

/** The option with its new capabilities; a 422 carries field errors (capabilities). */
export function updateDockerImageCapabilities(id: number, capabilities: string[]): Promise<AdminDockerImage> {
  return call(changeImageOption, { params: { id }, body: { capabilities } });
}

/** The git deploy editor's fields as the admin types them: texts, the kept paths one per line. */
export interface DeployForm {
  webRoot: string;
  afterUpdate: string;
  keepPaths: string;
  buildCommand: string;
  buildOutput: string;
}

export function deployFormOf(settings: ImageDeploySettings): DeployForm {
  return {
    webRoot: settings.webRoot ?? '',
    afterUpdate: settings.afterUpdate ?? '',
    keepPaths: settings.keepPaths.join('\n'),
    buildCommand: settings.buildCommand ?? '',
    buildOutput: settings.buildOutput ?? '',
  };
}

/** What the PATCH sends: empty texts stay empty (the server reads them as "none"). */
export function deployInputOf(form: DeployForm): ImageDeployInput {
  return { ...form, keepPaths: form.keepPaths.split('\n').map((line) => line.trim()).filter((line) => line !== '') };
}

/** The option with its new git deploy settings; a 422 carries field errors (deploy.webRoot, …). */
export function updateDockerImageDeploy(id: number, form: DeployForm): Promise<AdminDockerImage> {
  return call(changeImageOption, { params: { id }, body: { deploy: deployInputOf(form) } });
}

/** Deletes an option; 409 with a Dutch message while projects still use it. */
export async function deleteDockerImage(id: number): Promise<void> {
  await call(deleteImageOption, { params: { id } });
}

/** The request form's options list (GET /api/dockers) changes with every add or delete here. */
export const REQUEST_FORM_IMAGES_KEY = DOCKER_IMAGES_KEY;
