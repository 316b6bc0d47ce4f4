import { describe, expect, it } from 'vitest';
import { CommandWireGuardHost, firewallChainName, parseDump } from './wireguard-host.ts';

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
});
