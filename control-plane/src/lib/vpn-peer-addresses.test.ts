import { describe, expect, it } from 'vitest';
import { peerAddressesOf } from './vpn-peer-addresses.ts';

describe('the addresses a peer may get from a pool', () => {
  it('leaves out the network, the server (first host) and the broadcast address', () => {
    expect(peerAddressesOf('10.8.0.0/29')).toEqual(['10.8.0.2/32', '10.8.0.3/32', '10.8.0.4/32', '10.8.0.5/32', '10.8.0.6/32']);
    const large = peerAddressesOf('10.9.0.0/24');
    expect(large).toHaveLength(253);
    expect([large[0], large.at(-1)]).toEqual(['10.9.0.2/32', '10.9.0.254/32']);
    expect(peerAddressesOf('10.9.1.77/24')[0]).toBe('10.9.1.2/32');
  });

  it('gives nothing for what is not an IPv4 pool it would hand out', () => {
    for (const pool of ['', 'fd00::/64', '10.8.0.0', '10.8.0.0/8', '10.8.0.0/31', '300.1.1.0/24']) expect(peerAddressesOf(pool), pool).toEqual([]);
  });
});
