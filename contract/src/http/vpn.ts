/** A developer's WireGuard configuration (spec §7): /api/vpn. */
import { z } from 'zod';
import { vpnConfigJson } from '../access.ts';
import { endpoint, file, json } from './endpoint.ts';

const REFUSAL = 'De VPN is alleen voor ontwikkelaars.';

export const ownVpnConfig = endpoint({
  method: 'GET',
  path: '/api/vpn',
  access: 'developer',
  refusal: REFUSAL,
  summary: "The developer's configuration (identifier, tunnel address), or null before one is made.",
  answer: json(vpnConfigJson.nullable()),
});

export const createVpnConfig = endpoint({
  method: 'POST',
  path: '/api/vpn',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'Makes the configuration (a peer on every dev server); a second call answers the same one.',
  answer: json(z.strictObject({ identifier: z.string() })),
});

export const vpnConfigQr = endpoint({
  method: 'GET',
  path: '/api/vpn/qr',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'The configuration file as an SVG QR code, for the WireGuard app on a phone.',
  answer: file('image/svg+xml'),
});

export const vpnConfigFile = endpoint({
  method: 'GET',
  path: '/api/vpn/:identifier',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'The configuration file (`.conf`, its private key inside) as a download; the owner only.',
  params: z.object({ identifier: z.string() }),
  answer: file('text/plain'),
});

export const vpnEndpoints = [ownVpnConfig, createVpnConfig, vpnConfigQr, vpnConfigFile];
