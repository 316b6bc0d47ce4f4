import { readMeta } from '../meta.ts';
import { decideOnProject, deleteAdminProject, listAdminProjects } from '@devplein/contract/http/admin-projects';
import { editProject, listImageChoices, ownProject, requestProject } from '@devplein/contract/http/project-requests';
import { call, useEndpoint } from '../endpoints.ts';
import type { ProjectRequestInput } from '@devplein/contract/validation/projectRequest';
import type { ProjectMemberJson as ProjectMember, ProjectJson as Project, DockerImageOptionJson as DockerImageOption } from '@devplein/contract/projects';
export type { ProjectMember, Project, DockerImageOption };

/** The request form's options list (useEndpoint's key: the address it reads); the admin images page revalidates it after every change. */
export const DOCKER_IMAGES_KEY: string = listImageChoices.path;

/** The school's dev domain from the page's `site-domain` meta tag (project domains live under it). */
export function siteDomain(doc: Document = document): string {
  return readMeta('site-domain', doc) ?? 'dev.devplein.test';
}

/**
 * Every dev server's site domain from the `site-domains` meta tag (space-separated): an existing
 * project may lie under any of them; new ones get siteDomain().
 */
export function siteDomains(doc: Document = document): string[] {
  const listed = (readMeta('site-domains', doc) ?? '').split(' ').filter(Boolean);
  return listed.length > 0 ? listed : [siteDomain(doc)];
}

export function useDockerImages() {
  return useEndpoint(listImageChoices, {});
}

/** Admins: projects awaiting approval (the same list the profile's request counter counts). */
export function useAwaitingProjects() {
  return useEndpoint(listAdminProjects, {});
}

/** Admins: all approved projects; pass `enabled` false for viewers who may not ask (no request made). */
export function useApprovedProjects(enabled: boolean) {
  return useEndpoint(listAdminProjects, enabled ? { query: { all: 'true' } } : null);
}

/** The body of POST/PUT /api/user/project (spec §7). */
export type ProjectRequestBody = ProjectRequestInput;

/** A new request (awaiting approval). A 422 carries field errors. */
export function createProjectRequest(body: ProjectRequestBody): Promise<Project> {
  return call(requestProject, { body });
}

/** Edits a request (members and admins). */
export function updateProjectRequest(id: number, body: ProjectRequestBody): Promise<Project> {
  return call(editProject, { params: { id }, body });
}

/** Approve (awaiting/rejected) or reject (approved); answers the new state. */
export function toggleProjectApproval(id: number, git?: string): Promise<{ validated: boolean }> {
  return call(decideOnProject, { params: { id }, body: git === undefined ? {} : { git } });
}

/** Deletes a project (admins). */
export async function deleteProject(id: number): Promise<void> {
  await call(deleteAdminProject, { params: { id } });
}

/** One's own request (or any, for admins) for the edit form. */
export function useProject(id: number | null) {
  return useEndpoint(ownProject, id === null ? null : { params: { id } }, { shouldRetryOnError: false });
}
