import { describe, expect, it } from 'vitest';
import {
  AddressError,
  formatIpv4,
  lowestFreeAddress,
  parseIpv4,
  parsePeerAddress,
  parsePool,
  peerCapacity,
  peerCidr,
  poolCidr,
  serverInterfaceAddress,
} from './addresses.ts';

const ip = (text: string): number => {
  const value = parseIpv4(text);
  if (value === undefined) throw new Error(`bad test address ${text}`);
  return value;
};

describe('IPv4 parsing', () => {
  it('parses and formats dotted quads, the top of the range too', () => {
    expect(parseIpv4('10.8.0.12')).toBe(0x0a08000c);
    expect(formatIpv4(ip('255.255.255.255'))).toBe('255.255.255.255');
    expect(formatIpv4(ip('0.0.0.0'))).toBe('0.0.0.0');
  });

  it('refuses anything else', () => {
    for (const bad of ['10.8.0', '10.8.0.256', '10.08.0.1', '10.8.0.1.2', ' 10.8.0.1', '10.8.0.-1', 'a.b.c.d', '']) {
      expect(parseIpv4(bad), bad).toBeUndefined();
    }
  });
});

describe('the address pool', () => {
  it('gives the server the first host address and peers the rest, never network or broadcast', () => {
    const pool = parsePool('10.8.0.0/24');
    expect(formatIpv4(pool.server)).toBe('10.8.0.1');
    expect(serverInterfaceAddress(pool)).toBe('10.8.0.1/24');
    expect(formatIpv4(pool.firstPeer)).toBe('10.8.0.2');
    expect(formatIpv4(pool.lastPeer)).toBe('10.8.0.254');
    expect(peerCapacity(pool)).toBe(253);
  });

  it('clears host bits and takes /16 to /30', () => {
    expect(poolCidr(parsePool('10.8.3.77/16'))).toBe('10.8.0.0/16');
    const tiny = parsePool('10.9.0.4/30');
    expect(poolCidr(tiny)).toBe('10.9.0.4/30');
    expect(peerCapacity(tiny)).toBe(1);
    expect(formatIpv4(tiny.firstPeer)).toBe('10.9.0.6');
    expect(() => parsePool('10.8.0.0/31')).toThrow(AddressError);
    expect(() => parsePool('10.8.0.0/8')).toThrow(AddressError);
    expect(() => parsePool('10.8.0/24')).toThrow(AddressError);
  });

  it('checks a requested peer address', () => {
    const pool = parsePool('10.8.0.0/24');
    expect(parsePeerAddress('10.8.0.9', pool)).toBe(ip('10.8.0.9'));
    expect(parsePeerAddress('10.8.0.254/32', pool)).toBe(ip('10.8.0.254'));
    expect(() => parsePeerAddress('10.8.0.9/24', pool)).toThrow(/single address/);
    expect(() => parsePeerAddress('10.8.1.9', pool)).toThrow(/outside the pool/);
    expect(() => parsePeerAddress('10.8.0.1', pool)).toThrow(/server/);
    expect(() => parsePeerAddress('10.8.0.0', pool)).toThrow(/network or broadcast/);
    expect(() => parsePeerAddress('10.8.0.255/32', pool)).toThrow(/network or broadcast/);
    expect(() => parsePeerAddress('nonsense', pool)).toThrow(AddressError);
  });

  it('hands out the lowest free address and nothing when full', () => {
    const pool = parsePool('10.8.0.0/29');
    expect(peerCidr(lowestFreeAddress(pool, new Set()) ?? 0)).toBe('10.8.0.2/32');
    expect(formatIpv4(lowestFreeAddress(pool, new Set([ip('10.8.0.2'), ip('10.8.0.3'), ip('10.8.0.5')])) ?? 0)).toBe('10.8.0.4');
    const all = new Set([2, 3, 4, 5, 6].map((last) => ip(`10.8.0.${last}`)));
    expect(lowestFreeAddress(pool, all)).toBeUndefined();
  });
});
