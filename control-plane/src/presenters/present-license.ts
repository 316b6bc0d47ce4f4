import type { AdminLicenseJson, OwnLicenseJson } from '@devplein/contract/access';
import type { LicenseRow } from '../queries/licenses.ts';
export type { AdminLicenseJson, OwnLicenseJson };

const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function presentOwnLicense(row: LicenseRow): OwnLicenseJson {
  return {
    id: row.id,
    description: row.description,
    license: row.license,
    approved: row.approved_at !== null,
    approved_at: isoOrNull(row.approved_at),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function presentAdminLicense(row: LicenseRow): AdminLicenseJson {
  const { id, description, license, approved, approved_at, created_at } = presentOwnLicense(row);
  return { id, description, license, user: { id: row.user_id, name: row.user_name }, approved, approved_at, created_at };
}
