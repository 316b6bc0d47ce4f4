/**
 * iptables owner-match rules for the screenshot browser's user: whatever Chromium (or a page in
 * it) sends goes to the reverse proxy's site port and nowhere else.
 *
 *   iptables -N DEVPLEIN-BROWSER
 *   iptables -I OUTPUT -m owner --uid-owner <uid> -j DEVPLEIN-BROWSER
 *   iptables -A DEVPLEIN-BROWSER -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
 *   iptables -A DEVPLEIN-BROWSER -p tcp -j REJECT --reject-with tcp-reset
 *   iptables -A DEVPLEIN-BROWSER -j REJECT
 *   iptables -I DEVPLEIN-BROWSER -p tcp -d <proxy address> --dport <proxy port> \
 *            -m comment --comment devplein-agent:<agent pid> -j ACCEPT
 * and the same chain in ip6tables (without the proxy's ACCEPT unless the proxy is IPv6).
 *
 * ESTABLISHED,RELATED: the answers of the browser server to the agent's own connections (the
 * agent connects to it, never the other way). Everything new is refused: TCP with a reset (a
 * page's attempt fails at once), the rest (UDP: WebRTC) with ICMP port-unreachable.
 *
 * One chain per host, shared: each agent adds its own ACCEPT (tagged with its pid) and removes
 * it when it stops; rules of agents that no longer run are removed at the next apply. The chain
 * and its jump go when the last agent's rule goes. (Several agents only happen in tests; in
 * production one agent keeps the chain for as long as it runs.) Apply and remove each hold a
 * host lock: without it an agent stopping could flush and delete the chain between the steps of
 * another's apply, which then failed, or left that agent's browser with no rule at all.
 */
import { execFile } from 'node:child_process';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { hostLockPath, withHostLock } from '../../host-lock.ts';
import { AGENT_TAG, ip6tablesBinary, OwnerChain } from '../host/owner-chain.ts';

export { ip6tablesBinary };

const execFileAsync = promisify(execFile);

export const BROWSER_CHAIN = 'DEVPLEIN-BROWSER';

export interface BrowserFirewallOptions {
  /** The iptables command (name or path); ip6tables is the same name with ip6tables. */
  iptablesBinary: string;
  /** The browser user's uid. */
  uid: number;
  /** host:port of the reverse proxy's site listener (an IP address; `localhost` counts as 127.0.0.1). */
  proxy: string;
  /** Tag of this agent's ACCEPT rule (default: this process's pid). */
  owner?: number;
  /** Chain name (default BROWSER_CHAIN; tests use their own, at most 28 characters). */
  chain?: string;
}

/** The proxy's address and port, for -d/--dport. */
export function proxyTarget(proxy: string): { address: string; family: 4 | 6; port: number } {
  const port = Number(proxy.slice(proxy.lastIndexOf(':') + 1));
  let host = proxy.slice(0, proxy.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  if (host === 'localhost') host = '127.0.0.1';
  const family = isIP(host);
  if (family === 0) throw new Error(`the screenshot proxy must be an IP address for the browser's firewall (got ${host})`);
  return { address: host, family: family as 4 | 6, port };
}

export class BrowserFirewall {
  private readonly chain: OwnerChain;

  constructor(private readonly options: BrowserFirewallOptions) {
    this.chain = new OwnerChain({ iptablesBinary: options.iptablesBinary, uid: options.uid, chain: options.chain ?? BROWSER_CHAIN, ...(options.owner !== undefined ? { owner: options.owner } : {}) });
  }

  private accept(target: { address: string; port: number }, owner: number): string[] {
    return [this.chain.chain, '-p', 'tcp', '-d', target.address, '--dport', String(target.port), '-m', 'comment', '--comment', `${AGENT_TAG}${owner}`, '-j', 'ACCEPT'];
  }

  /** Chain, jump, refusals and this agent's ACCEPT; idempotent (checked before every browser start). */
  async apply(): Promise<void> {
    await withHostLock(hostLockPath(this.chain.chain), () => this.applyLocked());
  }

  /** This agent's ACCEPT goes; the chain too when no other agent's rule is left. */
  async remove(): Promise<void> {
    await withHostLock(hostLockPath(this.chain.chain), () => this.chain.removeOwn());
  }

  private async applyLocked(): Promise<void> {
    const target = proxyTarget(this.options.proxy);
    const { chain } = this;
    for (const { binary, family } of chain.families()) {
      await chain.ensureChain(binary);
      await chain.ensureRules(binary, [
        [chain.chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
        [chain.chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
        [chain.chain, '-j', 'REJECT'],
      ]);
      if (family === target.family) {
        await chain.removeStale(binary);
        const own = this.accept(target, chain.owner);
        if (!(await chain.succeeds(binary, ['-C', ...own]))) await chain.run(binary, ['-I', ...own.slice(0, 1), '1', ...own.slice(1)]);
      }
      await chain.ensureJump(binary);
    }
  }
}

/** Packets the chain's REJECT rules refused so far (`iptables -L <chain> -v -x -n`); undefined without the chain. */
export async function rejectedPackets(iptablesBinary: string, chain = BROWSER_CHAIN): Promise<number | undefined> {
  try {
    const { stdout } = await execFileAsync(iptablesBinary, ['-w', '-L', chain, '-v', '-x', '-n'], { timeout: 15_000 });
    return stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[2] === 'REJECT')
      .reduce((sum, fields) => sum + Number(fields[0]), 0);
  } catch {
    return undefined;
  }
}
