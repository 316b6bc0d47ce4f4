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

/** POST /api/vpn: the identifier of the user's configuration (new or existing). */
export function presentVpnIdentifier(config: { identifier: string }): { identifier: string } {
  return { identifier: config.identifier };
}
