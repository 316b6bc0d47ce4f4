import type { VpnConfigJson } from '@devplein/contract/access';
export type { VpnConfigJson };


export interface VpnConfigRow {
  identifier: string;
  address: string;
  created_at: Date | string;
}

export function presentVpnConfig(row: VpnConfigRow): VpnConfigJson {
  return { identifier: row.identifier, address: row.address, createdAt: new Date(row.created_at).toISOString() };
}
