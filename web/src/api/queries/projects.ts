import useSWR from 'swr';
import { api, apiFetcher } from '../client.ts';
import { readMeta } from '../meta.ts';
import type { ProjectRequestInput } from '@devplein/contract/validation/projectRequest';
import type { ProjectMemberJson as ProjectMember, ProjectJson as Project, DockerImageOptionJson as DockerImageOption } from '@devplein/contract/projects';
export type { ProjectMember, Project, DockerImageOption };

export const DOCKER_IMAGES_KEY = '/api/dockers';
/** Awaiting approval (the same list the profile's request counter counts). */
export const AWAITING_PROJECTS_KEY = '/api/admin/projects';
export const APPROVED_PROJECTS_KEY = '/api/admin/projects?all=true';

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
  return useSWR<DockerImageOption[]>(DOCKER_IMAGES_KEY, apiFetcher);
}

/** Admins: projects awaiting approval. */
export function useAwaitingProjects() {
  return useSWR<Project[]>(AWAITING_PROJECTS_KEY, apiFetcher);
}

/** Admins: all approved projects; pass `enabled` false for viewers who may not ask (no request made). */
export function useApprovedProjects(enabled: boolean) {
  return useSWR<Project[]>(enabled ? APPROVED_PROJECTS_KEY : null, apiFetcher);
}

/** The body of POST/PUT /api/user/project (spec §7). */
export type ProjectRequestBody = ProjectRequestInput;

/** POST /api/user/project: a new request (awaiting approval). A 422 carries field errors. */
export function createProjectRequest(body: ProjectRequestBody): Promise<Project> {
  return api.post<Project>('/api/user/project', body);
}

/** PUT /api/user/project/{id}: edit a request (members and admins). */
export function updateProjectRequest(id: number, body: ProjectRequestBody): Promise<Project> {
  return api.put<Project>(`/api/user/project/${id}`, body);
}

/** PUT /api/admin/projects/{id}: approve (awaiting/rejected) or reject (approved); answers the new state. */
export function toggleProjectApproval(id: number, git?: string): Promise<{ validated: boolean }> {
  return api.put<{ validated: boolean }>(`/api/admin/projects/${id}`, git === undefined ? {} : { git });
}

/** DELETE /api/admin/projects/{id}. */
export function deleteProject(id: number): Promise<void> {
  return api.delete<void>(`/api/admin/projects/${id}`);
}

/** One's own request (or any, for admins) for the edit form: GET /api/user/project/{id}. */
export function useProject(id: number | null) {
  return useSWR<Project>(id === null ? null : `/api/user/project/${id}`, apiFetcher, { shouldRetryOnError: false });
}
