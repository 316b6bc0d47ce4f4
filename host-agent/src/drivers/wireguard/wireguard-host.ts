/**
 * The WireGuard interface on this host, driven through its command-line tools (no shell, every
 * argument validated by the caller): `ip link add ... type wireguard` when the kernel has the
 * module, else `wireguard-go` (a userspace interface; these machines have no module), `ip` gives
 * it its address, `wg` sets keys and peers, `iptables` keeps peers
 * inside the allowed networks.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import type { FirewallAllow } from '../../config.ts';

/** A peer line of `wg show {iface} dump`. */
export interface PeerRuntime {
  publicKey: string;
  /** Unset when no handshake ever completed. */
  latestHandshake: Date | undefined;
  receivedBytes: number;
  sentBytes: number;
}

/** What the interface should hold at bring-up. */
export interface InterfaceSpec {
  privateKey: string;
  listenPort: number;
  /** "10.8.0.1/24" */
  address: string;
  peers: ReadonlyArray<{ publicKey: string; address: string }>;
}

/** Side effects on the host's WireGuard interface; a fake in unit tests. */
export interface WireGuardHost {
  /** Makes the interface exist, be up, and hold exactly `spec` (idempotent). */
  bringUp(spec: InterfaceSpec): Promise<void>;
  /**
   * Keeps peers inside `allowedNetworks` on the server side, and there to the admitted
   * protocols and ports only (idempotent); `undefined`: firewall off (removed).
   */
  applyFirewall(allowedNetworks: readonly string[] | undefined): Promise<void>;
  /** Adds or updates one peer: its only allowed IP is its own /32. */
  setPeer(publicKey: string, address: string): Promise<void>;
  removePeer(publicKey: string): Promise<void>;
  peerRuntime(): Promise<PeerRuntime[]>;
}

/** WireGuard cannot be used on this host (tool missing, not permitted, interface will not come up). */
export class WireGuardUnavailableError extends Error {
  override name = 'WireGuardUnavailableError';
}

export interface CommandWireGuardHostOptions {
  interfaceName: string;
  wgBinary: string;
  wireguardGoBinary: string;
  iptablesBinary: string;
  /** What the firewall admits to each allowed network (AGENT_WG_FIREWALL_ALLOW); default TCP 3306. */
  firewallAllow?: readonly FirewallAllow[];
  ipBinary?: string;
  /** Milliseconds a single command may take. */
  timeoutMs?: number;
}

/** iptables chain the agent owns for one interface (chain names are at most 28 characters). */
export function firewallChainName(interfaceName: string): string {
  return `DEVPLEIN-${interfaceName}`;
}

/** The firewall's default: the students' database (MySQL/MariaDB) and nothing else. */
export const DEFAULT_FIREWALL_ALLOW: readonly FirewallAllow[] = [{ protocol: 'tcp', firstPort: 3306, lastPort: 3306 }];

/**
 * The rules of the chain, in order: replies to what peers opened, then per allowed network one
 * ACCEPT per admitted protocol/port, then DROP. A peer therefore reaches the database port of
 * the tunnel address, not every service the server happens to listen on there (SSH, the
 * agent's metrics, a debug port), however it widens its own AllowedIPs.
 */
export function firewallRules(chain: string, networks: readonly string[], allow: readonly FirewallAllow[]): string[][] {
  const accept = (network: string, rule: FirewallAllow): string[] => {
    const head = ['-A', chain, '-d', network];
    if (rule.protocol === 'all') return [...head, '-j', 'ACCEPT'];
    if (rule.protocol === 'icmp') return [...head, '-p', 'icmp', '-j', 'ACCEPT'];
    const ports = rule.firstPort === rule.lastPort ? String(rule.firstPort) : `${rule.firstPort}:${rule.lastPort}`;
    return [...head, '-p', rule.protocol, '-m', rule.protocol, '--dport', ports, '-j', 'ACCEPT'];
  };
  return [
    ['-A', chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
    ...networks.flatMap((network) => allow.map((rule) => accept(network, rule))),
    ['-A', chain, '-j', 'DROP'],
  ];
}

/** A tool ran and failed; `stderr` is its last lines. */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

interface CommandFailure {
  code?: unknown;
  stderr?: unknown;
  message: string;
}

/** The environment for the tools: wireguard-go reads LOG_LEVEL (pino's "info" would make its daemon keep our pipes open). */
function toolEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['LOG_LEVEL', 'WG_PROCESS_FOREGROUND', 'WG_TUN_FD', 'WG_UAPI_FD', 'WG_UAPI_DIR']) delete env[name];
  return env;
}

export class CommandWireGuardHost implements WireGuardHost {
  private readonly iface: string;
  private readonly ip: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: CommandWireGuardHostOptions) {
    if (!/^[a-zA-Z0-9_=+.-]{1,15}$/.test(options.interfaceName)) throw new Error(`bad interface name ${JSON.stringify(options.interfaceName)}`);
    this.iface = options.interfaceName;
    this.ip = options.ipBinary ?? 'ip';
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Runs a tool; a failure carries its stderr. A missing tool is WireGuardUnavailableError. */
  private run(binary: string, args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(binary, args, { env: toolEnvironment(), timeout: this.timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const failure = error as CommandFailure;
        if (failure.code === 'ENOENT') return reject(new WireGuardUnavailableError(`${binary} is not installed (not found on PATH)`));
        const text = String(stderr || failure.stderr || failure.message).trim().split('\n').slice(-3).join(' ');
        reject(new CommandError(`${binary} ${args.join(' ')} failed: ${text}`, text));
      });
    });
  }

  private async interfaceExists(): Promise<boolean> {
    try {
      await this.run(this.ip, ['link', 'show', 'dev', this.iface]);
      return true;
    } catch (error) {
      if (error instanceof WireGuardUnavailableError) throw error;
      return false;
    }
  }

  async bringUp(spec: InterfaceSpec): Promise<void> {
    try {
      if (!(await this.interfaceExists())) await this.createInterface();
      const shown = await this.run(this.ip, ['-4', '-o', 'address', 'show', 'dev', this.iface]);
      if (!shown.split('\n').some((line) => line.split(/\s+/).includes(spec.address))) {
        await this.run(this.ip, ['address', 'add', spec.address, 'dev', this.iface]);
      }
      await this.run(this.ip, ['link', 'set', this.iface, 'up']);
      await this.syncConfig(spec);
    } catch (error) {
      if (error instanceof WireGuardUnavailableError) throw error;
      throw new WireGuardUnavailableError(`the WireGuard interface ${this.iface} cannot be brought up: ${(error as Error).message}`);
    }
  }

  /**
   * The kernel's WireGuard when it has the module (it survives an agent restart on its own);
   * else wireguard-go, which daemonizes and returns once the interface and its UAPI socket exist.
   */
  private async createInterface(): Promise<void> {
    try {
      await this.run(this.ip, ['link', 'add', 'dev', this.iface, 'type', 'wireguard']);
      return;
    } catch (error) {
      if (error instanceof WireGuardUnavailableError) throw error;
      // No kernel module (as on these machines): userspace below.
    }
    await this.run(this.options.wireguardGoBinary, [this.iface]);
    if (!(await this.interfaceExists())) throw new WireGuardUnavailableError(`${this.options.wireguardGoBinary} ${this.iface} made no interface`);
  }

  /**
   * `wg syncconf` from a generated file (mode 0600 in a private temp folder, removed at once):
   * the private key never appears on a command line, and peers on the interface that are not in
   * the spec are removed without disturbing the sessions of the ones that stay.
   */
  private async syncConfig(spec: InterfaceSpec): Promise<void> {
    const lines = ['[Interface]', `PrivateKey = ${spec.privateKey}`, `ListenPort = ${spec.listenPort}`];
    for (const peer of spec.peers) lines.push('', '[Peer]', `PublicKey = ${peer.publicKey}`, `AllowedIPs = ${peer.address}`);
    const dir = await mkdtemp(join(os.tmpdir(), 'devplein-wg-'));
    try {
      const file = join(dir, `${this.iface}.conf`);
      await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
      await this.run(this.options.wgBinary, ['syncconf', this.iface, file]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async iptables(args: string[]): Promise<string> {
    return this.run(this.options.iptablesBinary, ['-w', ...args]);
  }

  private async iptablesSucceeds(args: string[]): Promise<boolean> {
    try {
      await this.iptables(args);
      return true;
    } catch (error) {
      if (error instanceof WireGuardUnavailableError) throw error;
      return false;
    }
  }

  /**
   * The chain DEVPLEIN-{iface} (firewallRules): established/related traffic, then the admitted
   * protocols and ports of each allowed network, then DROP; hooked from INPUT and FORWARD for traffic coming in on the interface. Refilled on every
   * bring-up (so a changed list of networks takes effect); the hooks are added only when missing
   * (`-C` first), so restarts never stack them.
   * With `undefined` (firewall off) the chain and its hooks are removed when present.
   */
  async applyFirewall(allowedNetworks: readonly string[] | undefined): Promise<void> {
    const chain = firewallChainName(this.iface);
    const hook = (table: string) => [table, '-i', this.iface, '-j', chain];
    try {
      if (allowedNetworks === undefined) {
        // Firewall off: remove what an earlier run left; no iptables at all means nothing to remove.
        const present = await this.iptablesSucceeds(['-S', chain]).catch(() => false);
        if (!present) return;
        for (const table of ['INPUT', 'FORWARD']) while (await this.iptablesSucceeds(['-D', ...hook(table)]));
        await this.iptables(['-F', chain]);
        await this.iptables(['-X', chain]);
        return;
      }
      let oldRules = 0;
      try {
        oldRules = (await this.iptables(['-S', chain])).split('\n').filter((line) => line.startsWith('-A ')).length;
      } catch (error) {
        if (error instanceof WireGuardUnavailableError) throw error;
        await this.iptables(['-N', chain]);
      }
      // New rules behind the old ones, then the old ones off the top: the chain is never empty
      // (never open) while it is refilled.
      for (const rule of firewallRules(chain, allowedNetworks, this.options.firewallAllow ?? DEFAULT_FIREWALL_ALLOW)) await this.iptables(rule);
      for (let rule = 0; rule < oldRules; rule += 1) await this.iptables(['-D', chain, '1']);
      for (const table of ['INPUT', 'FORWARD']) {
        if (!(await this.iptablesSucceeds(['-C', ...hook(table)]))) await this.iptables(['-I', table, '1', '-i', this.iface, '-j', chain]);
      }
    } catch (error) {
      if (error instanceof WireGuardUnavailableError) throw error;
      throw new WireGuardUnavailableError(`the firewall for ${this.iface} cannot be set: ${(error as Error).message}`);
    }
  }

  async setPeer(publicKey: string, address: string): Promise<void> {
    await this.run(this.options.wgBinary, ['set', this.iface, 'peer', publicKey, 'allowed-ips', address]);
  }

  async removePeer(publicKey: string): Promise<void> {
    await this.run(this.options.wgBinary, ['set', this.iface, 'peer', publicKey, 'remove']);
  }

  async peerRuntime(): Promise<PeerRuntime[]> {
    return parseDump(await this.run(this.options.wgBinary, ['show', this.iface, 'dump']));
  }
}

/**
 * Parses `wg show {iface} dump`: the first line is the interface, each further line a peer:
 * public-key, preshared-key, endpoint, allowed-ips, latest-handshake (epoch s, 0 = never),
 * transfer-rx, transfer-tx, persistent-keepalive (tab-separated).
 */
export function parseDump(text: string): PeerRuntime[] {
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [publicKey = '', , , , handshake = '0', received = '0', sent = '0'] = line.split('\t');
      const seconds = Number(handshake);
      return {
        publicKey,
        latestHandshake: Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : undefined,
        receivedBytes: Number(received) || 0,
        sentBytes: Number(sent) || 0,
      };
    });
}
