/**
 * iptables owner-match rules for the git user (issue 23), the screenshot browser's mechanism
 * (browser-firewall.ts) applied to git: whatever git or its ssh sends as AGENT_GIT_USER goes to
 * the git host being fetched, at its port, and nowhere else. The port is one the school allowed
 * (issue 35): the address rule (contract/src/validation/repositoryAddress.ts) lets through the
 * transport's standard port only (https 443, ssh 22, http 80, git 9418) unless the allow-list
 * entry names another (`git.school.nl:2222`), so `https://git.school.nl:3306/x` never opens
 * port 3306 of the school's network to the dev server (checkDeployRequest and the runner check it).
 *
 *   iptables -N DEVPLEIN-GIT
 *   iptables -I OUTPUT -m owner --uid-owner <uid> -j DEVPLEIN-GIT
 *   iptables -A DEVPLEIN-GIT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
 *   iptables -A DEVPLEIN-GIT -p udp -d <nameserver> --dport 53 -j ACCEPT   (and tcp; each resolv.conf nameserver)
 *   iptables -A DEVPLEIN-GIT -p tcp -j REJECT --reject-with tcp-reset
 *   iptables -A DEVPLEIN-GIT -j REJECT
 *   iptables -A DEVPLEIN-GIT -m comment --comment devplein-agent:<pid> -j REJECT   (this agent's marker)
 * and per fetch, for as long as it runs, one ACCEPT per resolved address of the host:
 *   iptables -I DEVPLEIN-GIT 1 -p tcp -d <address> --dport <port> -m comment --comment devplein-agent:<pid>:<fetch> -j ACCEPT
 * The same chain in ip6tables (IPv6 addresses of the host go there).
 *
 * Loopback: packets to 127.0.0.0/8 leave through OUTPUT like any other (on `lo`), so the owner
 * match sees them; an ACCEPT names one address and one port, so a git host on 127.0.0.1:9418
 * opens that port only, not the agent's gRPC port or a database on the same address.
 *
 * One chain per host, shared by the agents on it (one in production; several in tests): each
 * agent's marker says it runs; an agent that stops removes its rules, and the chain goes when no
 * marker of a running agent is left. Changes hold a host lock, as the browser's do.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { hostLockPath, withHostLock } from '../../host-lock.ts';
import { AGENT_TAG, OwnerChain } from '../host/owner-chain.ts';
import { repositoryPort, type RepositoryAddress } from './repository-address.ts';

export const GIT_CHAIN = 'DEVPLEIN-GIT';

/** The port git connects to for an address (its own, or the transport's standard one). */
export function gitPort(address: Pick<RepositoryAddress, 'protocol' | 'port'>): number {
  return repositoryPort(address);
}

/** The nameservers of resolv.conf (git resolves the host itself). */
export function nameservers(resolvConf: string): string[] {
  return resolvConf
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((server): server is string => server !== undefined && isIP(server) !== 0);
}

export interface GitFirewallOptions {
  iptablesBinary: string;
  /** The git user's uid. */
  uid: number;
  /** Tag of this agent's rules (default: this process's pid). */
  owner?: number;
  /** Chain name (default GIT_CHAIN). */
  chain?: string;
  /** How a host name becomes addresses (default: the system's resolver, every address). */
  resolve?: (host: string) => Promise<string[]>;
}

export class GitFirewall {
  private readonly chain: OwnerChain;
  private based = false;

  constructor(private readonly options: GitFirewallOptions) {
    this.chain = new OwnerChain({ iptablesBinary: options.iptablesBinary, uid: options.uid, chain: options.chain ?? GIT_CHAIN, ...(options.owner !== undefined ? { owner: options.owner } : {}) });
  }

  private lock<T>(work: () => Promise<T>): Promise<T> {
    return withHostLock(hostLockPath(this.chain.chain), work);
  }

  /** The chain with its refusals, DNS and this agent's marker; idempotent (checked before every fetch). */
  async applyBase(): Promise<void> {
    const { chain } = this;
    const name = chain.chain;
    await this.lock(async () => {
      const servers = nameservers(await readFile('/etc/resolv.conf', 'utf8').catch(() => ''));
      for (const { binary, family } of chain.families()) {
        await chain.ensureChain(binary);
        await chain.removeStale(binary);
        await chain.ensureRules(binary, [
          [name, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
          ...servers
            .filter((server) => isIP(server) === family)
            .flatMap((server) => ['udp', 'tcp'].map((protocol) => [name, '-p', protocol, '-d', server, '--dport', '53', '-j', 'ACCEPT'])),
          [name, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
          [name, '-j', 'REJECT'],
          // This agent's marker (never reached: the REJECT above takes everything first).
          [name, '-m', 'comment', '--comment', `${AGENT_TAG}${chain.owner}`, '-j', 'REJECT'],
        ]);
        await chain.ensureJump(binary);
      }
      this.based = true;
    });
  }

  /**
   * Opens the way to `host:port` (every address it resolves to) for one fetch; the returned
   * function closes it again. The base is (re)applied first.
   */
  async open(host: string, port: number): Promise<() => Promise<void>> {
    const addresses = isIP(host) !== 0 ? [host] : await (this.options.resolve ?? resolveAll)(host);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    await this.applyBase();
    const { chain } = this;
    const tag = `${AGENT_TAG}${chain.owner}:${randomBytes(4).toString('hex')}`;
    const added: Array<{ binary: string; rule: string[] }> = [];
    await this.lock(async () => {
      for (const { binary, family } of chain.families()) {
        for (const address of addresses.filter((entry) => isIP(entry) === family)) {
          const rule = [chain.chain, '-p', 'tcp', '-d', address, '--dport', String(port), '-m', 'comment', '--comment', tag, '-j', 'ACCEPT'];
          await chain.run(binary, ['-I', chain.chain, '1', ...rule.slice(1)]);
          added.push({ binary, rule });
        }
      }
    });
    return async () => {
      await this.lock(async () => {
        for (const { binary, rule } of added) await chain.run(binary, ['-D', ...rule]).catch(() => undefined);
      });
    };
  }

  /** This agent's rules go; the chain and its jump too when no other running agent has a marker. */
  async remove(): Promise<void> {
    if (!this.based) return;
    await this.lock(() => this.chain.removeOwn());
    this.based = false;
  }
}

async function resolveAll(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true });
  return [...new Set(found.map((entry) => entry.address))];
}
