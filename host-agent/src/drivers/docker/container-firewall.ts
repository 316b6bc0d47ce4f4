/**
 * The host side of the isolation of project containers (docs/operations.md, "Student containers"). The
 * project network has inter-container traffic off (Docker's enable_icc=false), which stops
 * container → container on the bridge but not container → host: everything listening on the
 * host (on the bridge's gateway address, on 0.0.0.0 through any host address, docker-proxy of
 * other projects' published ports) would still answer. So the agent keeps one iptables chain per
 * project bridge, DEVPLEIN-CT-{bridge}, jumped to from INPUT for traffic coming in on that
 * bridge: established/related traffic, then the allowed host ports (MariaDB's 3306 by default),
 * then REJECT. And one rule in DOCKER-USER (FORWARD when Docker manages no iptables) drops
 * bridge → same bridge, so a published port reached through a hairpin DNAT (userland-proxy off)
 * cannot reach another project either, whatever Docker's own ICC rule does.
 *
 * Same style as the VPN chain (wireguard-host.ts): `iptables -w`, no shell, a chain that is
 * refilled behind its old rules (never empty, never open), hooks added only when missing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CONTAINER_CHAIN_PREFIX = 'DEVPLEIN-CT-';
/** Marks the FORWARD-side rule so a person reading `iptables -S` knows whose it is. */
const FORWARD_COMMENT = 'devplein: no traffic between project containers';
/** Linux interface names: at most 15 characters; Docker's are br-{12 hex}. */
const interfaceName = /^[a-zA-Z0-9_.-]{1,15}$/;

/** The agent's chain for one bridge (iptables allows 28 characters: 12 + 15 fit). */
export function containerChainName(bridge: string): string {
  if (!interfaceName.test(bridge)) throw new Error(`bad bridge name ${JSON.stringify(bridge)}`);
  return `${CONTAINER_CHAIN_PREFIX}${bridge}`;
}

/**
 * The chain's rules in order (the arguments after `-A {chain}`): answers to connections the host
 * opened (Caddy → site, the agent's exec, DNS replies) go back in, the allowed TCP ports are
 * open, everything else is refused. REJECT rather than DROP: a student's program fails at once
 * with "connection refused" instead of hanging; the host shows nothing more than that it refuses.
 */
export function containerChainRules(allowedTcpPorts: readonly number[]): string[][] {
  for (const port of allowedTcpPorts) {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`bad port ${port}`);
  }
  return [
    ['-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
    ...[...new Set(allowedTcpPorts)].map((port) => ['-p', 'tcp', '--dport', String(port), '-j', 'ACCEPT']),
    ['-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-j', 'REJECT', '--reject-with', 'icmp-port-unreachable'],
  ];
}

/** The INPUT hook: traffic from the bridge to the host goes through the chain. */
export function inputHook(bridge: string): string[] {
  return ['INPUT', '-i', bridge, '-j', containerChainName(bridge)];
}

/** The forward rule (in `table`: DOCKER-USER, or FORWARD without Docker's chains). */
export function forwardRule(table: string, bridge: string): string[] {
  if (!interfaceName.test(bridge)) throw new Error(`bad bridge name ${JSON.stringify(bridge)}`);
  return [table, '-i', bridge, '-o', bridge, '-m', 'comment', '--comment', FORWARD_COMMENT, '-j', 'DROP'];
}

/** The chains `iptables -S` lists as agent-owned container chains, with their bridge. */
export function containerChainsIn(listing: string): Array<{ chain: string; bridge: string }> {
  return listing
    .split('\n')
    .map((line) => /^-N (DEVPLEIN-CT-(\S+))$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ chain: match[1] ?? '', bridge: match[2] ?? '' }));
}

/** iptables cannot be used (not installed, no CAP_NET_ADMIN, a rule refused). */
export class ContainerFirewallError extends Error {
  override name = 'ContainerFirewallError';
}

/** Keeps a bridge's containers away from the host and each other; `remove` undoes it. */
export interface ContainerFirewall {
  /** Whether `apply` sets rules (`iptables`) or removes them (`off`). */
  readonly mode: 'iptables' | 'off';
  /** Makes the chain and hooks for `bridge` exist and hold the current rules (idempotent). */
  apply(bridge: string): Promise<void>;
  /** Removes the chains of bridges that are gone (pruneContainerFirewalls); returns their names. */
  prune(): Promise<string[]>;
}

export interface IptablesContainerFirewallOptions {
  mode: 'iptables' | 'off';
  iptablesBinary: string;
  allowedTcpPorts: readonly number[];
  timeoutMs?: number;
}

function run(binary: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['-w', ...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT') return reject(new ContainerFirewallError(`${binary} is not installed (not found on PATH)`));
      const text = String(stderr || error.message).trim().split('\n').slice(-3).join(' ');
      reject(new ContainerFirewallError(`${binary} ${args.join(' ')} failed: ${text}`));
    });
  });
}

async function succeeds(binary: string, args: string[], timeoutMs: number): Promise<boolean> {
  try {
    await run(binary, args, timeoutMs);
    return true;
  } catch (error) {
    if (error instanceof ContainerFirewallError && / is not installed /.test(error.message)) throw error;
    return false;
  }
}

/** Deletes every copy of a rule (`rule` = chain + match), chain and hooks of one bridge. */
async function removeFor(binary: string, bridge: string, timeoutMs: number): Promise<void> {
  const chain = containerChainName(bridge);
  while (await succeeds(binary, ['-D', ...inputHook(bridge)], timeoutMs));
  for (const table of ['DOCKER-USER', 'FORWARD']) while (await succeeds(binary, ['-D', ...forwardRule(table, bridge)], timeoutMs));
  if (await succeeds(binary, ['-S', chain], timeoutMs)) {
    await run(binary, ['-F', chain], timeoutMs);
    await run(binary, ['-X', chain], timeoutMs);
  }
}

export class IptablesContainerFirewall implements ContainerFirewall {
  readonly mode: 'iptables' | 'off';
  private readonly timeoutMs: number;

  constructor(private readonly options: IptablesContainerFirewallOptions) {
    this.mode = options.mode;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    containerChainRules(options.allowedTcpPorts);
  }

  async apply(bridge: string): Promise<void> {
    const binary = this.options.iptablesBinary;
    const chain = containerChainName(bridge);
    try {
      if (this.mode === 'off') {
        // Off: remove what an earlier run left; without iptables there is nothing to remove.
        await removeFor(binary, bridge, this.timeoutMs).catch((error: unknown) => {
          if (!(error instanceof ContainerFirewallError && / is not installed /.test(error.message))) throw error;
        });
        return;
      }
      const wanted = containerChainRules(this.options.allowedTcpPorts);
      let oldRules: number | undefined;
      try {
        oldRules = (await run(binary, ['-S', chain], this.timeoutMs)).split('\n').filter((line) => line.startsWith('-A ')).length;
      } catch (error) {
        if (/ is not installed /.test((error as Error).message)) throw error;
        await run(binary, ['-N', chain], this.timeoutMs);
      }
      // Already right (the usual case: a restart): left alone, so two agents on one host
      // (tests) never refill the same chain at once.
      let same = oldRules === wanted.length;
      for (const rule of wanted) if (same) same = await succeeds(binary, ['-C', chain, ...rule], this.timeoutMs);
      if (!same) {
        // New rules behind the old ones, then the old ones off the top: never an empty (open) chain.
        for (const rule of wanted) await run(binary, ['-A', chain, ...rule], this.timeoutMs);
        for (let rule = 0; rule < (oldRules ?? 0); rule += 1) await run(binary, ['-D', chain, '1'], this.timeoutMs);
      }
      const [input, ...inputRule] = inputHook(bridge);
      if (!(await succeeds(binary, ['-C', ...inputHook(bridge)], this.timeoutMs))) await run(binary, ['-I', input ?? 'INPUT', '1', ...inputRule], this.timeoutMs);
      // DOCKER-USER: the chain Docker evaluates first in FORWARD and never rewrites.
      const table = (await succeeds(binary, ['-S', 'DOCKER-USER'], this.timeoutMs)) ? 'DOCKER-USER' : 'FORWARD';
      const [, ...rule] = forwardRule(table, bridge);
      if (!(await succeeds(binary, ['-C', ...forwardRule(table, bridge)], this.timeoutMs))) await run(binary, ['-I', table, '1', ...rule], this.timeoutMs);
    } catch (error) {
      if (error instanceof ContainerFirewallError) throw error;
      throw new ContainerFirewallError(`the container firewall for ${bridge} cannot be set: ${(error as Error).message}`);
    }
  }

  prune(): Promise<string[]> {
    return pruneContainerFirewalls(this.options.iptablesBinary, this.timeoutMs);
  }
}

/**
 * Removes the chains (and hooks) of bridges that no longer exist: a network removed while its
 * chain stayed (a test run's networks; a network an admin deleted). Never touches the chain of
 * a bridge that exists, so agents sharing a host (tests) cannot undo each other's rules.
 * Returns the chains it removed.
 */
export async function pruneContainerFirewalls(iptablesBinary: string, timeoutMs = 15_000): Promise<string[]> {
  const removed: string[] = [];
  for (const { chain, bridge } of containerChainsIn(await run(iptablesBinary, ['-S'], timeoutMs))) {
    if (!interfaceName.test(bridge) || existsSync(`/sys/class/net/${bridge}`)) continue;
    // Another pruner may race: a failure here only means someone else removed it first.
    await removeFor(iptablesBinary, bridge, timeoutMs).then(
      () => removed.push(chain),
      () => undefined,
    );
  }
  return removed;
}
