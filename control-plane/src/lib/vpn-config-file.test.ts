import { describe, expect, it } from 'vitest';
import { vpnConfigFile, VpnConfigFileError, type VpnConfigFileInput } from './vpn-config-file.ts';
import { generateWireguardKeyPair, wireguardPublicKeyOf } from './wireguard-keys.ts';

const input = (): VpnConfigFileInput => ({
  privateKey: generateWireguardKeyPair().privateKey,
  address: '10.8.0.7/32',
  serverPublicKey: generateWireguardKeyPair().publicKey,
  endpoint: 'dev.school.nl:51820',
  allowedNetworks: ['10.8.0.1/32', '172.20.0.0/16'],
});

describe('the WireGuard client file', () => {
  it('has the interface, the server peer, only the allowed networks and keepalive 25', () => {
    const values = input();
    expect(vpnConfigFile(values)).toBe(
      [
        '[Interface]',
        `PrivateKey = ${values.privateKey}`,
        'Address = 10.8.0.7/32',
        '',
        '[Peer]',
        `PublicKey = ${values.serverPublicKey}`,
        'Endpoint = dev.school.nl:51820',
        'AllowedIPs = 10.8.0.1/32, 172.20.0.0/16',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
  });

  it('adds DNS only when the server names servers, and writes a bare address as /32', () => {
    const text = vpnConfigFile({ ...input(), address: '10.8.0.9', dnsServers: ['10.8.0.1'] });
    expect(text).toContain('Address = 10.8.0.9/32\nDNS = 10.8.0.1\n');
  });

  it.each([
    ['a default route', { allowedNetworks: ['0.0.0.0/0'] }],
    ['an IPv6 default route beside a good network', { allowedNetworks: ['10.8.0.1/32', '::/0'] }],
    ['no allowed networks', { allowedNetworks: [] }],
    ['a network that is no network', { allowedNetworks: ['10.8.0.1/33'] }],
    ['a line break in a network', { allowedNetworks: ['10.8.0.1/32\nPostUp = rm -rf /'] }],
    ['a line break in the endpoint', { endpoint: 'dev.school.nl:51820\nPostUp = x' }],
    ['an endpoint without port', { endpoint: 'dev.school.nl' }],
    ['a bad server key', { serverPublicKey: 'abc' }],
    ['a bad private key', { privateKey: 'x'.repeat(44) }],
    ['a bad address', { address: 'tien' }],
    ['a bad DNS server', { dnsServers: ['dns.school.nl'] }],
  ])('refuses %s', (_what, change) => {
    expect(() => vpnConfigFile({ ...input(), ...change })).toThrow(VpnConfigFileError);
  });
});

describe('WireGuard keys', () => {
  it('makes distinct base64 key pairs of 32 bytes whose public half matches the private one', () => {
    const first = generateWireguardKeyPair();
    const second = generateWireguardKeyPair();
    expect(first.privateKey).not.toBe(second.privateKey);
    for (const pair of [first, second]) {
      expect(Buffer.from(pair.privateKey, 'base64')).toHaveLength(32);
      expect(Buffer.from(pair.publicKey, 'base64')).toHaveLength(32);
      expect(wireguardPublicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    }
  });

  it('derives the public key as `wg pubkey` does (a known pair)', () => {
    expect(wireguardPublicKeyOf('qHsOl37b2dSsv6w6kW6p8w5W2Ck2OBzf95sLXGxefGo=')).toBe('kBz+sbUOBJTmNax9Te5z72VFc88qaYoSVV7juaja7Bo=');
  });
});
