import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { AdminLicenseJson as AdminLicense, OwnLicenseJson as OwnLicense } from '@devplein/contract/access';
export type { AdminLicense, OwnLicense };

/*
 * Licences (spec §2 Licences, §7 admin calls; beyond the spec: requests from one's own profile).
 * Admin calls are admin-only on the server; the own-list calls are for every activated user.
 */

export interface LicenseRequestInput {
  description: string;
  license: string;
}

export const ADMIN_LICENSES_KEY = '/api/admin/licenses';
export const OWN_LICENSES_KEY = '/api/user/licenses';

export interface QueryResult<T> {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<T>;
}

/** Every licence, newest first (admins). */
export function useAdminLicenses(): QueryResult<AdminLicense[]> {
  const { data, error, isLoading, mutate } = useSWR<AdminLicense[]>(ADMIN_LICENSES_KEY, apiFetcher<AdminLicense[]>);
  return { data, error, isLoading, mutate };
}

/** PUT /api/admin/licenses/{id}: toggles approval; answers the licence as it is now. */
export function toggleLicenseApproval(id: number): Promise<AdminLicense> {
  return api.put<AdminLicense>(`${ADMIN_LICENSES_KEY}/${id}`);
}

/** The signed-in user's own requests, newest first. */
export function useOwnLicenses(): QueryResult<OwnLicense[]> {
  const { data, error, isLoading, mutate } = useSWR<OwnLicense[]>(OWN_LICENSES_KEY, apiFetcher<OwnLicense[]>);
  return { data, error, isLoading, mutate };
}

/** POST /api/user/licenses: answers the updated own list. A 422 carries errors.description / errors.license. */
export function requestLicense(input: LicenseRequestInput): Promise<OwnLicense[]> {
  return api.post<OwnLicense[]>(OWN_LICENSES_KEY, input);
}

/** DELETE /api/user/licenses/{id}: withdraws a pending request; answers the updated own list. */
export function withdrawLicense(id: number): Promise<OwnLicense[]> {
  return api.delete<OwnLicense[]>(`${OWN_LICENSES_KEY}/${id}`);
}
