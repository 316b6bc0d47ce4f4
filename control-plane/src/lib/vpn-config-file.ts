import { isIP } from 'node:net';

/** What goes into a client's WireGuard `.conf`. */
export interface VpnConfigFileInput {
  /** The client's private key (base64). */
  privateKey: string;
  /** The peer's tunnel address, CIDR (e.g. `10.8.0.2/32`). */
  address: string;
  /** The server's public key (base64). */
  serverPublicKey: string;
  /** `host:port` the client dials. */
  endpoint: string;
  /** The networks the client routes through the tunnel (AllowedIPs): the database server's. */
  allowedNetworks: readonly string[];
  dnsServers?: readonly string[];
}

/** Spec §4/§7 keep the tunnel to the school's networks: a config that would route everything is refused. */
export class VpnConfigFileError extends Error {
  override name = 'VpnConfigFileError';
}

/** Keeps a NAT mapping open from behind a home router (WireGuard's usual value). */
export const PERSISTENT_KEEPALIVE_SECONDS = 25;

/** The download's file name (Content-Disposition). */
export const VPN_CONFIG_FILE_NAME = 'devplein.conf';

const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

function cidr(value: string, what: string): string {
  const [ip, prefix, ...rest] = value.trim().split('/');
  const family = isIP(ip ?? '');
  const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
  if (rest.length > 0 || family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32) || (prefix !== undefined && !/^\d+$/.test(prefix))) {
    throw new VpnConfigFileError(`${what} is not an address or network: ${value}`);
  }
  return `${ip}/${bits}`;
}

function key(value: string, what: string): string {
  if (!WIREGUARD_KEY.test(value)) throw new VpnConfigFileError(`${what} is not a WireGuard key`);
  return value;
}

/**
 * The client's `.conf` as `wg-quick` reads it (and `wg-quick strip` + `wg setconf` accept):
 * [Interface] with its private key and tunnel address; [Peer] with the server's key, endpoint,
 * AllowedIPs = only the allowed networks, and a keepalive. A default route (0.0.0.0/0, ::/0) is
 * refused: the tunnel must never carry the student's other traffic. Every value is checked, so
 * no line break or stray text from the agent can add a directive (e.g. PostUp).
 */
export function vpnConfigFile(input: VpnConfigFileInput): string {
  const allowed = input.allowedNetworks.map((network) => cidr(network, 'allowed network'));
  if (allowed.length === 0) throw new VpnConfigFileError('the agent reports no allowed networks');
  const wide = allowed.find((network) => network.endsWith('/0'));
  if (wide) throw new VpnConfigFileError(`allowed network ${wide} would route all traffic through the tunnel`);
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/.test(input.endpoint)) {
    throw new VpnConfigFileError(`endpoint is not host:port: ${input.endpoint}`);
  }
  const dns = (input.dnsServers ?? []).map((server) => {
    if (isIP(server) === 0) throw new VpnConfigFileError(`DNS server is not an address: ${server}`);
    return server;
  });
  const lines = [
    '[Interface]',
    `PrivateKey = ${key(input.privateKey, 'private key')}`,
    `Address = ${cidr(input.address, 'peer address')}`,
    ...(dns.length > 0 ? [`DNS = ${dns.join(', ')}`] : []),
    '',
    '[Peer]',
    `PublicKey = ${key(input.serverPublicKey, 'server public key')}`,
    `Endpoint = ${input.endpoint}`,
    `AllowedIPs = ${allowed.join(', ')}`,
    `PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** GET /api/vpn/qr: the same `.conf` as an SVG QR code, for the WireGuard app on a phone. */
export async function vpnConfigQrSvg(configText: string): Promise<string> {
  // Loaded on the first QR code (qrcode and pngjs: ~60 modules a control plane mostly never needs).
  const QRCode = (await import('qrcode')).default;
  return QRCode.toString(configText, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
