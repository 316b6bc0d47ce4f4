/** The host addresses of an IPv4 pool ("10.8.0.0/24") a peer may get: the first is the server's, the last the broadcast. */
export function peerAddressesOf(pool: string): string[] {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(pool);
  if (!match) return [];
  const octets = match.slice(1, 5).map(Number);
  const bits = Number(match[5]);
  if (octets.some((octet) => octet > 255) || bits < 16 || bits > 30) return [];
  const size = 2 ** (32 - bits);
  const address = octets.reduce((value, octet) => value * 256 + octet, 0);
  const base = address - (address % size);
  const addresses: string[] = [];
  for (let offset = 2; offset < size - 1; offset += 1) {
    const value = base + offset;
    addresses.push(`${[24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.')}/32`);
  }
  return addresses;
}
