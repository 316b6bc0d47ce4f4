import useSWR from 'swr';
import type { ProjectJson } from '@devplein/contract/projects';
import { listAdminProjects } from '@devplein/contract/http/admin-projects';
import { currentUser, userProfile } from '@devplein/contract/http/user';
import { call, keyOf, useEndpoint } from '../endpoints.ts';
import type { ProfileJson } from '@devplein/contract/users';
import type { LevelCategoryProgressJson as LevelCategoryProgress } from '@devplein/contract/levels';
export type { LevelCategoryProgress };

/**
 * A profile as GET /api/user (own) or GET /api/user/{id} (someone) returns it. The activation
 * date is only in one's own answer; `levelCategories` is empty for users without levels.
 */
export type Profile = ProfileJson & { email_verified_at?: string | null };

/** A project awaiting approval (GET /api/admin/projects); the profile only counts them. */
export type ProjectRequest = Pick<ProjectJson, 'id' | 'name' | 'domain' | 'created_at'>;

// Own key: the start-up user in the current-user context is loaded once; the profile wants it fresh.
const OWN_PROFILE_KEY = 'profile:own';

/** The signed-in user's own profile (GET /api/user), or someone's (GET /api/user/{id}). */
export function useProfile(id: string | undefined) {
  return useSWR<Profile>(id === undefined ? OWN_PROFILE_KEY : keyOf(userProfile, { params: { id } }), () =>
    id === undefined ? call(currentUser, {}) : call(userProfile, { params: { id } }),
  { shouldRetryOnError: false });
}

/** The projects awaiting approval; pass `enabled` false for viewers who may not ask (no request made). */
export function useProjectRequests(enabled: boolean) {
  return useEndpoint(listAdminProjects, enabled ? {} : null);
}
