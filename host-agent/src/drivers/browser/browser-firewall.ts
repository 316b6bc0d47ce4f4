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
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { hostLockPath, withHostLock } from '../../host-lock.ts';

const execFileAsync = promisify(execFile);

export const BROWSER_CHAIN = 'DEVPLEIN-BROWSER';
const TAG = 'devplein-agent:';

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

export function ip6tablesBinary(iptablesBinary: string): string {
  const base = path.basename(iptablesBinary).replace(/^iptables/, 'ip6tables');
  return path.join(path.dirname(iptablesBinary), base);
}

export class BrowserFirewall {
  private readonly owner: number;
  private readonly chain: string;

  constructor(private readonly options: BrowserFirewallOptions) {
    this.owner = options.owner ?? process.pid;
    this.chain = options.chain ?? BROWSER_CHAIN;
  }

  private async run(binary: string, args: string[]): Promise<string> {
    const { stdout } = await execFileAsync(binary, ['-w', ...args], { timeout: 15_000 });
    return stdout;
  }

  private async succeeds(binary: string, args: string[]): Promise<boolean> {
    try {
      await this.run(binary, args);
      return true;
    } catch {
      return false;
    }
  }

  private families(): Array<{ binary: string; family: 4 | 6 }> {
    return [
      { binary: this.options.iptablesBinary, family: 4 },
      { binary: ip6tablesBinary(this.options.iptablesBinary), family: 6 },
    ];
  }

  private jump(): string[] {
    return ['OUTPUT', '-m', 'owner', '--uid-owner', String(this.options.uid), '-j', this.chain];
  }

  private accept(target: { address: string; port: number }, owner: number): string[] {
    return [this.chain, '-p', 'tcp', '-d', target.address, '--dport', String(target.port), '-m', 'comment', '--comment', `${TAG}${owner}`, '-j', 'ACCEPT'];
  }

  /** Chain, jump, refusals and this agent's ACCEPT; idempotent (checked before every browser start). */
  async apply(): Promise<void> {
    await withHostLock(hostLockPath(this.chain), () => this.applyLocked());
  }

  /** This agent's ACCEPT goes; the chain too when no other agent's rule is left. */
  async remove(): Promise<void> {
    await withHostLock(hostLockPath(this.chain), () => this.removeLocked());
  }

  private async applyLocked(): Promise<void> {
    const target = proxyTarget(this.options.proxy);
    for (const { binary, family } of this.families()) {
      if (!(await this.succeeds(binary, ['-S', this.chain]))) {
        // Another agent may create it at the same moment: that is fine.
        await this.run(binary, ['-N', this.chain]).catch(() => undefined);
      }
      const established = [this.chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'];
      const rejectTcp = [this.chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'];
      const rejectRest = [this.chain, '-j', 'REJECT'];
      for (const rule of [established, rejectTcp, rejectRest]) if (!(await this.succeeds(binary, ['-C', ...rule]))) await this.run(binary, ['-A', ...rule]);
      if (family === target.family) {
        await this.removeStaleAccepts(binary);
        const own = this.accept(target, this.owner);
        if (!(await this.succeeds(binary, ['-C', ...own]))) await this.run(binary, ['-I', ...own.slice(0, 1), '1', ...own.slice(1)]);
      }
      if (!(await this.succeeds(binary, ['-C', ...this.jump()]))) await this.run(binary, ['-I', 'OUTPUT', '1', ...this.jump().slice(1)]);
    }
  }

  private async removeLocked(): Promise<void> {
    // Agents' ACCEPTs live in the proxy's family only; while one is left, both families' chains stay.
    let othersLeft = false;
    for (const { binary } of this.families()) {
      if (!(await this.succeeds(binary, ['-S', this.chain]))) continue;
      await this.deleteAccepts(binary, (owner) => owner === this.owner);
      await this.removeStaleAccepts(binary);
      if ((await this.run(binary, ['-S', this.chain])).includes(TAG)) othersLeft = true;
    }
    if (othersLeft) return;
    for (const { binary } of this.families()) {
      if (!(await this.succeeds(binary, ['-S', this.chain]))) continue;
      while (await this.succeeds(binary, ['-D', ...this.jump()]));
      await this.run(binary, ['-F', this.chain]).catch(() => undefined);
      await this.run(binary, ['-X', this.chain]).catch(() => undefined);
    }
  }

  private async removeStaleAccepts(binary: string): Promise<void> {
    await this.deleteAccepts(binary, (owner) => owner !== this.owner && !existsSync(`/proc/${owner}`));
  }

  private async deleteAccepts(binary: string, which: (owner: number) => boolean): Promise<void> {
    const rules = (await this.run(binary, ['-S', this.chain])).split('\n');
    for (const rule of rules) {
      const owner = new RegExp(`--comment "?${TAG}(\\d+)"?`).exec(rule)?.[1];
      if (!owner || !rule.startsWith('-A ') || !which(Number(owner))) continue;
      // `-S` prints the rule as it was added: delete it by the same words.
      const words = rule.slice(3).split(/\s+/).map((word) => word.replace(/^"|"$/g, ''));
      await this.run(binary, ['-D', ...words]).catch(() => undefined);
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
