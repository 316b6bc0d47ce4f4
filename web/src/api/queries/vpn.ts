import type { KeyedMutator } from 'swr';
import { pathOf } from '@devplein/contract/http/endpoint';
import { createVpnConfig, ownVpnConfig, vpnConfigFile, vpnConfigQr } from '@devplein/contract/http/vpn';
import type { VpnConfigJson as VpnConfig } from '@devplein/contract/access';
import { call, keyOf, useEndpoint } from '../endpoints.ts';
export type { VpnConfig };

export const VPN_KEY = keyOf(ownVpnConfig, {})!;

/** The QR code (SVG) of the same configuration file, for the WireGuard app on a phone. */
export const VPN_QR_PATH = pathOf(vpnConfigQr);

/** Where the `.conf` file of a configuration is downloaded (spec §7). */
export function vpnDownloadHref(identifier: string): string {
  return pathOf(vpnConfigFile, { identifier });
}

export interface VpnQuery {
  /** undefined while loading, null when the developer has no configuration yet. */
  vpn: VpnConfig | null | undefined;
  error: unknown;
  mutate: KeyedMutator<VpnConfig | null>;
}

/** The signed-in developer's configuration; `enabled` false (not a developer) asks nothing. */
export function useVpn(enabled = true): VpnQuery {
  const { data, error, mutate } = useEndpoint(ownVpnConfig, enabled ? {} : null);
  return { vpn: data, error, mutate };
}

/**
 * Makes the configuration (a second call answers the same one). Answers only `{identifier}`;
 * reload the configuration for the address.
 */
export function createVpn(): Promise<{ identifier: string }> {
  return call(createVpnConfig, {});
}
