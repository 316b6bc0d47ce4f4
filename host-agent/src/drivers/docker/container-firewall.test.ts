import { describe, expect, it } from 'vitest';
import { containerChainName, containerChainRules, containerChainsIn, forwardRule, inputHook } from './container-firewall.ts';

describe('container firewall rules', () => {
  it('names one chain per bridge within iptables’ 28 characters', () => {
    expect(containerChainName('br-0123456789ab')).toBe('DEVPLEIN-CT-br-0123456789ab');
    expect(containerChainName('br-0123456789ab').length).toBeLessThanOrEqual(28);
    expect(() => containerChainName('br-0123456789abc')).toThrow(/bad bridge/);
    expect(() => containerChainName('br0; rm -rf /')).toThrow(/bad bridge/);
  });

  it('answers established traffic, opens only the allowed TCP ports, and refuses the rest', () => {
    expect(containerChainRules([3306])).toEqual([
      ['-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
      ['-p', 'tcp', '--dport', '3306', '-j', 'ACCEPT'],
      ['-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
      ['-j', 'REJECT', '--reject-with', 'icmp-port-unreachable'],
    ]);
    // No allowed port: nothing of the host answers but replies to its own connections.
    expect(containerChainRules([])).toHaveLength(3);
    expect(containerChainRules([3306, 5432, 3306]).filter((rule) => rule.includes('--dport')).map((rule) => rule[3])).toEqual(['3306', '5432']);
    expect(() => containerChainRules([0])).toThrow(/bad port/);
    expect(() => containerChainRules([70_000])).toThrow(/bad port/);
  });

  it('hooks the chain from INPUT for traffic from the bridge, and drops bridge to same bridge in FORWARD', () => {
    expect(inputHook('br-abc')).toEqual(['INPUT', '-i', 'br-abc', '-j', 'DEVPLEIN-CT-br-abc']);
    expect(forwardRule('DOCKER-USER', 'br-abc')).toEqual([
      'DOCKER-USER', '-i', 'br-abc', '-o', 'br-abc', '-m', 'comment', '--comment', 'devplein: no traffic between project containers', '-j', 'DROP',
    ]);
  });

  it('finds its own chains in `iptables -S`', () => {
    const listing = ['-P INPUT ACCEPT', '-N DEVPLEIN-wg0', '-N DEVPLEIN-CT-br-0123456789ab', '-N DOCKER-USER', '-A INPUT -i br-0123456789ab -j DEVPLEIN-CT-br-0123456789ab'].join('\n');
    expect(containerChainsIn(listing)).toEqual([{ chain: 'DEVPLEIN-CT-br-0123456789ab', bridge: 'br-0123456789ab' }]);
  });
});
