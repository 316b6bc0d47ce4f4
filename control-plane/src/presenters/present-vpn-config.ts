/** GET /api/vpn: the user's configuration (spec §3: the identifier used in the download path). */
export interface VpnConfigJson {
  identifier: string;
  /** The peer's tunnel address as the agent handed it out, CIDR (e.g. `10.8.0.2/32`). */
  address: string;
  createdAt: string;
}

export interface VpnConfigRow {
  identifier: string;
  address: string;
  created_at: Date | string;
}

export function presentVpnConfig(row: VpnConfigRow): VpnConfigJson {
  return { identifier: row.identifier, address: row.address, createdAt: new Date(row.created_at).toISOString() };
}
