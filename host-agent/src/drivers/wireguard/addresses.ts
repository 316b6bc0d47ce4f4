/**
 * IPv4 arithmetic for the VPN address pool: the server takes the first host address of the
 * pool, peers get single addresses (/32) from the rest; the network and broadcast addresses are
 * never handed out.
 */

/** A mistake in an address or network given by a caller (or the configuration). */
export class AddressError extends Error {
  override name = 'AddressError';
}

/** An IPv4 address as an unsigned 32-bit number. */
export type Ipv4 = number;

/** Parses dotted-quad IPv4 ("10.8.0.5"); undefined when it is not exactly that. */
export function parseIpv4(text: string): Ipv4 | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: Ipv4): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** The pool peers and the server take their addresses from. */
export interface AddressPool {
  /** Network address (host bits zero). */
  network: Ipv4;
  prefix: number;
  broadcast: Ipv4;
  /** The server's own tunnel address: the first host address. */
  server: Ipv4;
  /** First and last address a peer may get. */
  firstPeer: Ipv4;
  lastPeer: Ipv4;
}

/**
 * Parses a pool "10.8.0.0/24" (prefix 16-30; host bits set are cleared, "10.8.0.7/24" is the
 * same pool). A /30 has one peer address.
 */
export function parsePool(cidr: string): AddressPool {
  const match = /^([\d.]+)\/(\d{1,2})$/.exec(cidr.trim());
  const address = match ? parseIpv4(match[1] ?? '') : undefined;
  const prefix = match ? Number(match[2]) : NaN;
  if (address === undefined || !(prefix >= 16 && prefix <= 30)) {
    throw new AddressError(`address pool ${JSON.stringify(cidr)} is not an IPv4 network /16-/30 like 10.8.0.0/24`);
  }
  const size = 2 ** (32 - prefix);
  const network = address - (address % size);
  const broadcast = network + size - 1;
  return { network, prefix, broadcast, server: network + 1, firstPeer: network + 2, lastPeer: broadcast - 1 };
}

/** "10.8.0.0/24" */
export function poolCidr(pool: AddressPool): string {
  return `${formatIpv4(pool.network)}/${pool.prefix}`;
}

/** The server's interface address, "10.8.0.1/24". */
export function serverInterfaceAddress(pool: AddressPool): string {
  return `${formatIpv4(pool.server)}/${pool.prefix}`;
}

/** A peer's address in the form WireGuard and the contract use: "10.8.0.12/32". */
export function peerCidr(address: Ipv4): string {
  return `${formatIpv4(address)}/32`;
}

/** How many peers the pool holds. */
export function peerCapacity(pool: AddressPool): number {
  return pool.lastPeer - pool.firstPeer + 1;
}

/**
 * A requested peer address ("10.8.0.12" or "10.8.0.12/32") checked against the pool: it must be
 * a single address inside the pool that is neither the network, the broadcast nor the server's.
 */
export function parsePeerAddress(text: string, pool: AddressPool): Ipv4 {
  const match = /^([\d.]+)(?:\/(\d{1,2}))?$/.exec(text.trim());
  const address = match ? parseIpv4(match[1] ?? '') : undefined;
  if (address === undefined) throw new AddressError(`address ${JSON.stringify(text.slice(0, 60))} is not an IPv4 address like 10.8.0.12/32`);
  if (match?.[2] !== undefined && match[2] !== '32') throw new AddressError(`address ${JSON.stringify(text)} must be a single address (/32)`);
  if (address < pool.network || address > pool.broadcast) {
    throw new AddressError(`address ${formatIpv4(address)} is outside the pool ${poolCidr(pool)}`);
  }
  if (address === pool.server) throw new AddressError(`address ${formatIpv4(address)} is the server's own tunnel address`);
  if (address < pool.firstPeer || address > pool.lastPeer) {
    throw new AddressError(`address ${formatIpv4(address)} is the network or broadcast address of ${poolCidr(pool)}`);
  }
  return address;
}

/** The lowest peer address not in `taken`; undefined when the pool is full. */
export function lowestFreeAddress(pool: AddressPool, taken: ReadonlySet<Ipv4>): Ipv4 | undefined {
  for (let candidate = pool.firstPeer; candidate <= pool.lastPeer; candidate += 1) {
    if (!taken.has(candidate)) return candidate;
  }
  return undefined;
}
