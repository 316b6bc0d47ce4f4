import type { KeyedMutator } from 'swr';
import {
  listAllLicenses,
  listOwnLicenses,
  requestLicense as requestLicenseEndpoint,
  toggleLicenseApproval as toggleLicenseApprovalEndpoint,
  withdrawLicense as withdrawLicenseEndpoint,
} from '@devplein/contract/http/licenses';
import type { AdminLicenseJson as AdminLicense, OwnLicenseJson as OwnLicense } from '@devplein/contract/access';
import { call, useEndpoint } from '../endpoints.ts';
export type { AdminLicense, OwnLicense };

/*
 * Licences (spec §2 Licences, §7 admin calls; beyond the spec: requests from one's own profile).
 * Admin calls are admin-only on the server; the own-list calls are for every activated user.
 */

export interface QueryResult<T> {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<T>;
}

/** Every licence, newest first (admins). */
export function useAdminLicenses(): QueryResult<AdminLicense[]> {
  const { data, error, isLoading, mutate } = useEndpoint(listAllLicenses, {});
  return { data, error, isLoading, mutate };
}

/** Toggles approval; answers the licence as it is now. */
export function toggleLicenseApproval(id: number): Promise<AdminLicense> {
  return call(toggleLicenseApprovalEndpoint, { params: { id } });
}

/** The signed-in user's own requests, newest first. */
export function useOwnLicenses(): QueryResult<OwnLicense[]> {
  const { data, error, isLoading, mutate } = useEndpoint(listOwnLicenses, {});
  return { data, error, isLoading, mutate };
}

/** Requests a licence; answers the updated own list. A 422 carries errors.description / errors.license. */
export function requestLicense(input: { description: string; license: string }): Promise<OwnLicense[]> {
  return call(requestLicenseEndpoint, { body: input });
}

/** Withdraws a pending request; answers the updated own list. */
export function withdrawLicense(id: number): Promise<OwnLicense[]> {
  return call(withdrawLicenseEndpoint, { params: { id } });
}
