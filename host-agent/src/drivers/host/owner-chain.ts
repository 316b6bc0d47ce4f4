/**
 * An iptables chain (and its ip6tables twin) that an unprivileged user's outgoing traffic jumps to
 * by owner match: the common part of the screenshot browser's firewall (browser-firewall.ts) and
 * the git user's (git-firewall.ts). One chain per host, shared by the agents on it: each agent's
 * rules carry a comment `devplein-agent:<pid>[...]`; rules of agents that no longer run are stale
 * and removed; the chain and its jump go when the last agent's rules go. Callers hold the chain's
 * host lock around every change (hostLockPath(chain)).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The comment prefix of every agent's rules in an owner chain. */
export const AGENT_TAG = 'devplein-agent:';

export function ip6tablesBinary(iptablesBinary: string): string {
  const base = path.basename(iptablesBinary).replace(/^iptables/, 'ip6tables');
  return path.join(path.dirname(iptablesBinary), base);
}

export interface OwnerChainOptions {
  iptablesBinary: string;
  /** The user whose traffic jumps to the chain. */
  uid: number;
  chain: string;
  /** Tag of this agent's rules (default: this process's pid). */
  owner?: number;
}

export class OwnerChain {
  readonly owner: number;
  readonly chain: string;

  constructor(private readonly options: OwnerChainOptions) {
    this.owner = options.owner ?? process.pid;
    this.chain = options.chain;
  }

  async run(binary: string, args: string[]): Promise<string> {
    const { stdout } = await execFileAsync(binary, ['-w', ...args], { timeout: 15_000 });
    return stdout;
  }

  async succeeds(binary: string, args: string[]): Promise<boolean> {
    try {
      await this.run(binary, args);
      return true;
    } catch {
      return false;
    }
  }

  families(): Array<{ binary: string; family: 4 | 6 }> {
    return [
      { binary: this.options.iptablesBinary, family: 4 },
      { binary: ip6tablesBinary(this.options.iptablesBinary), family: 6 },
    ];
  }

  jump(): string[] {
    return ['OUTPUT', '-m', 'owner', '--uid-owner', String(this.options.uid), '-j', this.chain];
  }

  /** The chain exists (another agent may make it at the same moment: fine). */
  async ensureChain(binary: string): Promise<void> {
    if (!(await this.succeeds(binary, ['-S', this.chain]))) await this.run(binary, ['-N', this.chain]).catch(() => undefined);
  }

  /** Each rule appended unless it is there already. */
  async ensureRules(binary: string, rules: string[][]): Promise<void> {
    for (const rule of rules) if (!(await this.succeeds(binary, ['-C', ...rule]))) await this.run(binary, ['-A', ...rule]);
  }

  /** The user's traffic jumps to the chain, first in OUTPUT. */
  async ensureJump(binary: string): Promise<void> {
    if (!(await this.succeeds(binary, ['-C', ...this.jump()]))) await this.run(binary, ['-I', 'OUTPUT', '1', ...this.jump().slice(1)]);
  }

  /** Rules of agents whose process is gone. */
  async removeStale(binary: string): Promise<void> {
    await this.deleteTagged(binary, (owner) => owner !== this.owner && !existsSync(`/proc/${owner}`));
  }

  async deleteTagged(binary: string, which: (owner: number) => boolean): Promise<void> {
    const rules = (await this.run(binary, ['-S', this.chain])).split('\n');
    for (const rule of rules) {
      const owner = new RegExp(`--comment "?${AGENT_TAG}(\\d+)`).exec(rule)?.[1];
      if (!owner || !rule.startsWith('-A ') || !which(Number(owner))) continue;
      // `-S` prints the rule as it was added: delete it by the same words.
      const words = rule.slice(3).split(/\s+/).map((word) => word.replace(/^"|"$/g, ''));
      await this.run(binary, ['-D', ...words]).catch(() => undefined);
    }
  }

  /** This agent's rules go; the chain and its jump too when no other running agent has a rule in it (either family). */
  async removeOwn(): Promise<void> {
    let othersLeft = false;
    for (const { binary } of this.families()) {
      if (!(await this.succeeds(binary, ['-S', this.chain]))) continue;
      await this.deleteTagged(binary, (owner) => owner === this.owner);
      await this.removeStale(binary);
      if ((await this.run(binary, ['-S', this.chain])).includes(AGENT_TAG)) othersLeft = true;
    }
    if (othersLeft) return;
    for (const { binary } of this.families()) {
      if (!(await this.succeeds(binary, ['-S', this.chain]))) continue;
      while (await this.succeeds(binary, ['-D', ...this.jump()]));
      await this.run(binary, ['-F', this.chain]).catch(() => undefined);
      await this.run(binary, ['-X', this.chain]).catch(() => undefined);
    }
  }
}
