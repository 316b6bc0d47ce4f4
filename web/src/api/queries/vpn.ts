import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { VpnConfigJson as VpnConfig } from '@devplein/contract/access';
export type { VpnConfig };

export const VPN_KEY = '/api/vpn';

/** The QR code (SVG) of the same configuration file, for the WireGuard app on a phone. */
export const VPN_QR_PATH = '/api/vpn/qr';

/** Where the `.conf` file of a configuration is downloaded (spec §7). */
export function vpnDownloadHref(identifier: string): string {
  return `${VPN_KEY}/${encodeURIComponent(identifier)}`;
}

export interface VpnQuery {
  /** undefined while loading, null when the developer has no configuration yet. */
  vpn: VpnConfig | null | undefined;
  error: unknown;
  mutate: KeyedMutator<VpnConfig | null>;
}

/** The signed-in developer's configuration; `enabled` false (not a developer) asks nothing. */
export function useVpn(enabled = true): VpnQuery {
  const { data, error, mutate } = useSWR<VpnConfig | null>(enabled ? VPN_KEY : null, apiFetcher<VpnConfig | null>);
  return { vpn: data, error, mutate };
}

/**
 * POST /api/vpn: makes the configuration (a second call answers the same one). Answers only
 * `{identifier}`; reload GET /api/vpn for the address.
 */
export function createVpn(): Promise<{ identifier: string }> {
  return api.post<{ identifier: string }>(VPN_KEY);
}
