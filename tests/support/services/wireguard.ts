/**
 * WireGuard for tests, on this host's real tools: userspace interfaces (wireguard-go; the kernel
 * has no module), a network namespace "home" joined to the root namespace by a veth pair, and
 * clean-up of everything a test made (interfaces, namespaces, the agent's iptables chain).
 *
 * `/var/run/wireguard/` (the UAPI sockets) is shared by every namespace and every test run:
 * always name interfaces with uniqueSuffix().
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { findExecutable } from './system-deps.ts';

const execFileAsync = promisify(execFile);

/** The tools a WireGuard test needs; throws one clear message naming every missing one. */
export function requireWireGuardTools(): void {
  const tools: Array<[string, string]> = [
    ['wireguard-go', 'wireguard-go'],
    ['wg', 'wireguard-tools'],
    ['ip', 'iproute2'],
    ['iptables', 'iptables'],
  ];
  const missing = tools.filter(([name]) => findExecutable(name, ['/usr/sbin', '/sbin']) === undefined);
  if (missing.length > 0) {
    throw new Error(
      `WireGuard tests need ${missing.map(([name]) => name).join(', ')} (Debian: apt-get install ${missing.map(([, pkg]) => pkg).join(' ')}; npm test's system step installs them)`,
    );
  }
  if (process.getuid?.() !== 0) throw new Error('WireGuard tests must run as root (they make interfaces, namespaces and iptables rules)');
}

/** Six random characters [a-z0-9] for interface and namespace names (interface names ≤ 15). */
export function uniqueSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/** Runs a tool (no shell) and returns stdout; a failure carries stderr in its message. */
export async function run(binary: string, args: string[], timeoutMs = 20_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync(binary, args, { timeout: timeoutMs, env: { ...process.env, LOG_LEVEL: '' } });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`${binary} ${args.join(' ')} failed: ${stderr || (error as Error).message}`, { cause: error });
  }
}

/** Like run(), for clean-up: failures are ignored. */
export async function attempt(binary: string, args: string[]): Promise<void> {
  await run(binary, args).catch(() => undefined);
}

/** Runs a tool inside network namespace `netns`. */
export function inNetns(netns: string, binary: string, args: string[], timeoutMs?: number): Promise<string> {
  return run('ip', ['netns', 'exec', netns, binary, ...args], timeoutMs);
}

/** `wg show {iface} {what}` (what: public-key, listen-port, allowed-ips, dump, ...). */
export async function wgShow(iface: string, what: string): Promise<string> {
  return (await run('wg', ['show', iface, what])).trim();
}

/** Peers and their allowed IPs on `iface`: public key → "10.8.0.2/32" (several joined by spaces). */
export async function wgAllowedIps(iface: string): Promise<Map<string, string>> {
  const text = await wgShow(iface, 'allowed-ips');
  return new Map(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [key = '', ...ips] = line.split(/\s+/);
        return [key, ips.join(' ')];
      }),
  );
}

export async function interfaceExists(iface: string, netns?: string): Promise<boolean> {
  const args = ['link', 'show', 'dev', iface];
  try {
    await (netns ? inNetns(netns, 'ip', args) : run('ip', args));
    return true;
  } catch {
    return false;
  }
}

/** Deletes an interface (wireguard-go then exits by itself); missing is fine. */
export async function deleteInterface(iface: string, netns?: string): Promise<void> {
  const args = ['link', 'del', 'dev', iface];
  if (netns) await attempt('ip', ['netns', 'exec', netns, 'ip', ...args]);
  else await attempt('ip', args);
}

/** Lines of `iptables -S {chain}` (throws when the chain does not exist). */
export async function iptablesRules(chain: string): Promise<string[]> {
  return (await run('iptables', ['-w', '-S', chain])).split('\n').filter(Boolean);
}

/** How often `chain` is jumped to from `table` (INPUT/FORWARD) for traffic in on `iface`. */
export async function hookCount(table: string, iface: string, chain: string): Promise<number> {
  const rules = await iptablesRules(table);
  return rules.filter((rule) => rule === `-A ${table} -i ${iface} -j ${chain}`).length;
}

/** Packets the chain's final DROP rule has dropped. */
export async function droppedPackets(chain: string): Promise<number> {
  const lines = (await run('iptables', ['-w', '-L', chain, '-n', '-v', '-x'])).split('\n');
  const drop = lines.find((line) => /\sDROP\s/.test(` ${line} `));
  return drop ? Number(drop.trim().split(/\s+/)[0]) : 0;
}

/** Removes the agent's chain for `iface` and every hook to it (missing is fine). */
export async function removeFirewall(iface: string, chain: string): Promise<void> {
  for (const table of ['INPUT', 'FORWARD']) {
    for (let i = 0; i < 10; i += 1) {
      try {
        await run('iptables', ['-w', '-D', table, '-i', iface, '-j', chain]);
      } catch {
        break;
      }
    }
  }
  await attempt('iptables', ['-w', '-F', chain]);
  await attempt('iptables', ['-w', '-X', chain]);
}

/** A network namespace joined to the root namespace by a veth pair with a /30 on each end. */
export interface HomeNetwork {
  netns: string;
  rootVeth: string;
  homeVeth: string;
  /** e.g. "10.204.7.1" (root side) and "10.204.7.2" (home side). */
  rootAddress: string;
  homeAddress: string;
  /** Removes the veth pair and the namespace (and whatever interfaces live in it). */
  remove(): Promise<void>;
}

/**
 * Makes namespace `netns` with a veth pair: `rootVeth` (`{prefix}.1/30`) in the root namespace,
 * `homeVeth` (`{prefix}.2/30`) inside, both up. `prefix` is three octets, e.g. "10.204.7".
 */
export async function makeHomeNetwork(options: { netns: string; rootVeth: string; homeVeth: string; prefix: string }): Promise<HomeNetwork> {
  const { netns, rootVeth, homeVeth, prefix } = options;
  const home: HomeNetwork = {
    netns,
    rootVeth,
    homeVeth,
    rootAddress: `${prefix}.1`,
    homeAddress: `${prefix}.2`,
    async remove() {
      await attempt('ip', ['link', 'del', 'dev', rootVeth]);
      await attempt('ip', ['netns', 'del', netns]);
    },
  };
  try {
    await run('ip', ['netns', 'add', netns]);
    await run('ip', ['link', 'add', rootVeth, 'type', 'veth', 'peer', 'name', homeVeth]);
    await run('ip', ['link', 'set', homeVeth, 'netns', netns]);
    await run('ip', ['address', 'add', `${home.rootAddress}/30`, 'dev', rootVeth]);
    await run('ip', ['link', 'set', rootVeth, 'up']);
    await inNetns(netns, 'ip', ['address', 'add', `${home.homeAddress}/30`, 'dev', homeVeth]);
    await inNetns(netns, 'ip', ['link', 'set', homeVeth, 'up']);
    await inNetns(netns, 'ip', ['link', 'set', 'lo', 'up']);
  } catch (error) {
    await home.remove();
    throw error;
  }
  return home;
}

/**
 * A WireGuard client inside `netns`: interface `iface` (wireguard-go) with `address` (/32), its
 * private key given through a file (never on a command line), one peer (the server) reached at
 * `endpoint`, routes for `allowedIps` through the tunnel.
 */
export async function startWireGuardClient(options: {
  netns: string;
  iface: string;
  privateKeyFile: string;
  address: string;
  serverPublicKey: string;
  endpoint: string;
  allowedIps: string[];
}): Promise<void> {
  const { netns, iface } = options;
  await inNetns(netns, 'wireguard-go', [iface]);
  await inNetns(netns, 'wg', [
    'set',
    iface,
    'private-key',
    options.privateKeyFile,
    'peer',
    options.serverPublicKey,
    'endpoint',
    options.endpoint,
    'allowed-ips',
    options.allowedIps.join(','),
    'persistent-keepalive',
    '1',
  ]);
  await inNetns(netns, 'ip', ['address', 'add', options.address, 'dev', iface]);
  await inNetns(netns, 'ip', ['link', 'set', iface, 'up']);
  for (const network of options.allowedIps) await inNetns(netns, 'ip', ['route', 'replace', network, 'dev', iface]);
}

/**
 * Opens a TCP connection from inside `netns` to host:port with the given timeout (no `ping`
 * on these machines: a TCP connect through the tunnel proves the same path, and a DROP shows as a
 * timeout). True when it connected.
 */
export async function tcpConnects(netns: string, host: string, port: number, timeoutMs = 3_000): Promise<boolean> {
  const script =
    'const s=require("net").connect({host:process.argv[1],port:Number(process.argv[2])});' +
    `s.setTimeout(${timeoutMs},()=>{s.destroy();process.exit(3)});` +
    's.on("connect",()=>{s.end();process.exit(0)});s.on("error",()=>process.exit(2));';
  try {
    await inNetns(netns, process.execPath, ['-e', script, host, String(port)], timeoutMs + 10_000);
    return true;
  } catch {
    return false;
  }
}
