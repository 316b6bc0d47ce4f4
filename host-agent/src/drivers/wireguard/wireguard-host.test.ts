import { describe, expect, it } from 'vitest';
import { CommandWireGuardHost, firewallChainName, firewallRules, parseDump } from './wireguard-host.ts';

describe('the WireGuard host driver', () => {
  it('parses `wg show dump`: the interface line skipped, a never-seen peer without handshake', () => {
    const dump = [
      'cHJpdmF0ZQ==\tcHVibGlj\t51820\toff',
      'QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=\t(none)\t10.204.1.2:40000\t10.8.0.2/32\t1700000000\t1234\t5678\t1',
      'QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\t(none)\t(none)\t10.8.0.3/32\t0\t0\t0\toff',
      '',
    ].join('\n');
    expect(parseDump(dump)).toEqual([
      { publicKey: 'QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=', latestHandshake: new Date(1_700_000_000_000), receivedBytes: 1234, sentBytes: 5678 },
      { publicKey: 'QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=', latestHandshake: undefined, receivedBytes: 0, sentBytes: 0 },
    ]);
  });

  it('names the chain within iptables’ 28 characters and refuses odd interface names', () => {
    expect(firewallChainName('wg0')).toBe('DEVPLEIN-wg0');
    expect(firewallChainName('a'.repeat(15)).length).toBeLessThanOrEqual(28);
    const tools = { wgBinary: 'wg', wireguardGoBinary: 'wireguard-go', iptablesBinary: 'iptables' };
    expect(() => new CommandWireGuardHost({ interfaceName: 'wg0; rm -rf /', ...tools })).toThrow(/bad interface name/);
    expect(() => new CommandWireGuardHost({ interfaceName: 'a'.repeat(16), ...tools })).toThrow(/bad interface name/);
  });

  it('lets peers reach only the listed protocols and ports of each allowed network: TCP 3306 by default', () => {
    const chain = 'DEVPLEIN-wg0';
    const established = ['-A', chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'];
    const drop = ['-A', chain, '-j', 'DROP'];
    expect(firewallRules(chain, ['10.8.0.1/32'], [{ protocol: 'tcp', firstPort: 3306, lastPort: 3306 }])).toEqual([
      established,
      ['-A', chain, '-d', '10.8.0.1/32', '-p', 'tcp', '-m', 'tcp', '--dport', '3306', '-j', 'ACCEPT'],
      drop,
    ]);
    const more = [{ protocol: 'udp', firstPort: 53, lastPort: 53 }, { protocol: 'tcp', firstPort: 8000, lastPort: 8100 }, { protocol: 'icmp' }] as const;
    expect(firewallRules(chain, ['10.8.0.1/32', '10.0.5.0/24'], more).slice(1, -1)).toEqual([
      ['-A', chain, '-d', '10.8.0.1/32', '-p', 'udp', '-m', 'udp', '--dport', '53', '-j', 'ACCEPT'],
      ['-A', chain, '-d', '10.8.0.1/32', '-p', 'tcp', '-m', 'tcp', '--dport', '8000:8100', '-j', 'ACCEPT'],
      ['-A', chain, '-d', '10.8.0.1/32', '-p', 'icmp', '-j', 'ACCEPT'],
      ['-A', chain, '-d', '10.0.5.0/24', '-p', 'udp', '-m', 'udp', '--dport', '53', '-j', 'ACCEPT'],
      ['-A', chain, '-d', '10.0.5.0/24', '-p', 'tcp', '-m', 'tcp', '--dport', '8000:8100', '-j', 'ACCEPT'],
      ['-A', chain, '-d', '10.0.5.0/24', '-p', 'icmp', '-j', 'ACCEPT'],
    ]);
    // `all`: the whole networks, as before the setting existed.
    expect(firewallRules(chain, ['10.8.0.1/32'], [{ protocol: 'all' }])).toEqual([established, ['-A', chain, '-d', '10.8.0.1/32', '-j', 'ACCEPT'], drop]);
  });
});
