/**
 * A fresh Debian server with systemd as PID 1, for the operations tests (tests/ops): a debootstrap
 * tree booted with `systemd-nspawn --boot` in a network namespace of its own (loopback only, so
 * its PostgreSQL, MariaDB, Docker, soketi, agent and control plane take their standard ports
 * without meeting this machine's), driven as a sysadmin would drive it, with `systemctl` and
 * `journalctl` through `nsenter` into all of its namespaces.
 *
 * What these machines need, and why (the README's test section lists the suite):
 * - No systemd runs on the host, so nspawn runs with `--register=no --keep-unit` (nothing to
 *   register with) and `SYSTEMD_SECCOMP=0` with `--capability=all`: the Docker engine inside
 *   needs the keyring and mount system calls nspawn's filter denies by default.
 * - The host has cgroup v1 (a hybrid hierarchy). nspawn mounts the v1 controllers read-only into
 *   the machine, where a server's dockerd can write them; they are made writable again right after
 *   boot, before any container is made (`mount -o remount,rw,bind`).
 * - WireGuard's userspace interface needs /dev/net/tun: bound in, then made the machine's own
 *   0666 node as udev makes it on a server (the host's may be 0600, and wireguard-go runs as
 *   devplein-agent).
 *
 * The base trees (`debootstrap --variant=minbase` plus systemd-sysv and dbus) and every Debian
 * package the tests install are cached outside the clone, in DEVPLEIN_TEST_CACHE
 * (/var/cache/devplein-tests), so a fresh clone fetches nothing it fetched before. The packages
 * are fetched on this machine's network in a chroot (`apt-get install --download-only`); inside
 * the machine, apt-get then installs them offline, as it would from a local mirror.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../clients/ports.ts';

const run = promisify(execFile);

export type DebianRelease = 'bookworm' | 'trixie';

/** Debian's number for a release, as the docs and test names say it. */
export const debianVersion: Record<DebianRelease, number> = { bookworm: 12, trixie: 13 };

export const testCache = process.env.DEVPLEIN_TEST_CACHE || '/var/cache/devplein-tests';
const MIRROR = 'http://deb.debian.org/debian';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const chrootEnv = { PATH: SYSTEM_PATH, LANG: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive' };
/** What a minimal server needs to boot: systemd as init, the system bus for systemctl and logind. */
const BOOT_PACKAGES = ['systemd-sysv', 'dbus'];

export interface CommandResult {
  code: number;
  output: string;
}

/** The host programs the machines need (Debian's debootstrap and systemd-container), installed when missing. */
export async function ensureMachineTools(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the operations tests boot Debian machines (debootstrap, systemd-nspawn): run them as root');
  const missing = [
    ['/usr/sbin/debootstrap', 'debootstrap'],
    ['/usr/bin/systemd-nspawn', 'systemd-container'],
  ].filter(([program]) => !existsSync(program!));
  if (missing.length === 0) return;
  const names = missing.map(([, name]) => name!);
  await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...names], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 }).catch(async () => {
    await run('apt-get', ['update', '-q'], { timeout: 300_000 });
    await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...names], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 });
  });
}

/** The cached base tree of a release, made with debootstrap the first time (into a partial folder, then renamed). */
async function baseTree(release: DebianRelease): Promise<string> {
  const tree = path.join(testCache, `${release}-systemd`);
  if (existsSync(path.join(tree, 'etc/debian_version'))) return tree;
  const partial = `${tree}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(testCache, { recursive: true });
  await run('debootstrap', ['--variant=minbase', `--include=${BOOT_PACKAGES.join(',')}`, release, partial, MIRROR], { timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 });
  // A server, not a first boot that asks questions: no firstboot wizard, a name of its own.
  await run('ln', ['-sf', '/dev/null', path.join(partial, 'etc/systemd/system/systemd-firstboot.service')]);
  await writeFile(path.join(partial, 'etc/hostname'), 'devplein-server\n');
  // debootstrap's downloads: the packages the tests need are cached apart (fetchPackages).
  await run('chroot', [partial, 'apt-get', 'clean'], { env: chrootEnv }).catch(() => undefined);
  await rm(tree, { recursive: true, force: true });
  await rename(partial, tree);
  return tree;
}

/** Hard links where the file system allows (the cache and the work folder on one disk), else copies. */
async function linkFiles(from: string, to: string, names: string[]): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of names) {
    const target = path.join(to, name);
    if (existsSync(target)) continue;
    await run('ln', [path.join(from, name), target]).catch(() => cp(path.join(from, name), target));
  }
}

const debsIn = async (folder: string): Promise<string[]> => (existsSync(folder) ? (await readdir(folder)).filter((name) => name.endsWith('.deb')) : []);

export interface BootOptions {
  release: DebianRelease;
  /** An empty folder of the test's own: the machine's tree goes into `work/server`. */
  work: string;
  /** Debian packages fetched beforehand (from the cache or the mirror), so apt-get inside installs them offline. */
  packages: string[];
  /** Called with the tree before it boots (unpack a release bundle, add files). */
  prepare?: (tree: string) => Promise<void>;
}

/** One booted Debian server. */
export class DebianMachine {
  private constructor(
    readonly release: DebianRelease,
    /** The machine's root folder, as seen from this host. */
    readonly tree: string,
    private readonly nspawn: ChildProcess,
    /** The machine's PID 1 (systemd), as seen from this host. */
    private readonly leader: number,
    readonly consoleLog: string,
  ) {}

  static async boot(options: BootOptions): Promise<DebianMachine> {
    await ensureMachineTools();
    const tree = path.join(options.work, 'server');
    await run('cp', ['-a', await baseTree(options.release), tree]);
    await options.prepare?.(tree);
    await fetchPackages(options.release, tree, options.packages);

    const consoleLog = path.join(options.work, 'console.log');
    const log = createWriteStream(consoleLog);
    const args = [
      '--directory',
      tree,
      '--boot',
      '--register=no',
      '--keep-unit',
      '--private-network',
      '--capability=all',
      '--bind=/dev/net/tun',
      `--machine=devplein-${options.release}-${process.pid}`,
      '--console=pipe',
    ];
    const nspawn = spawn('systemd-nspawn', args, { env: { ...process.env, SYSTEMD_SECCOMP: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    nspawn.stdout!.pipe(log);
    nspawn.stderr!.pipe(log);
    let exited: number | null | undefined;
    nspawn.once('exit', (code) => (exited = code));
    // The machine's PID 1 is the child of nspawn that is pid 1 in a PID namespace of its own. nspawn
    // first forks an outer child that sets up the namespaces, forks PID 1 and exits: taking that one
    // (as the first child seen) made nsenter fail on a process that was gone.
    let leader = 0;
    await waitFor(
      async () => {
        if (exited !== undefined) throw new Error(`systemd-nspawn ended at boot (exit ${exited}): ${await readFile(consoleLog, 'utf8').catch(() => '')}`);
        const { stdout } = await run('pgrep', ['-P', String(nspawn.pid)]).catch(() => ({ stdout: '' }));
        for (const child of stdout.split('\n').map(Number).filter((pid) => pid > 0)) {
          if (await isNamespaceInit(child)) leader = child;
        }
        return leader > 0;
      },
      { description: `the ${options.release} machine's PID 1`, timeoutMs: 60_000, intervalMs: 100 },
    ).catch((error: unknown) => {
      nspawn.kill('SIGKILL');
      throw error;
    });
    const machine = new DebianMachine(options.release, tree, nspawn, leader, consoleLog);
    try {
      // Until the boot is over (running, or degraded when some unit failed: the test looks at its own
      // units). systemctl answers once PID 1 has made its socket.
      const state = await machine.run('for i in $(seq 600); do [ -S /run/systemd/private ] && break; sleep 0.1; done; systemctl is-system-running --wait', 300_000);
      if (!/^(running|degraded)/m.test(state.output)) throw new Error(`the ${options.release} machine did not boot: ${state.output}\n${await readFile(consoleLog, 'utf8')}`);
      await machine.ok('for controller in /sys/fs/cgroup/*/; do [ "$controller" = /sys/fs/cgroup/systemd/ ] || [ "$controller" = /sys/fs/cgroup/unified/ ] || mount -o remount,rw,bind "$controller"; done');
      // /dev/net/tun as udev makes it on a Debian server (0666: wireguard-go runs as devplein-agent,
      // not root); the host's node may be 0600, and a bind mount keeps its mode. The machine's /dev is its own.
      await machine.ok('umount /dev/net/tun 2>/dev/null; rm -f /dev/net/tun && mknod -m 0666 /dev/net/tun c 10 200');
    } catch (error) {
      await machine.stop();
      throw error;
    }
    return machine;
  }

  /** A bash script run as root inside the machine (all its namespaces, a clean environment), as over SSH. */
  async run(script: string, timeoutMs = 600_000): Promise<CommandResult> {
    const args = ['--target', String(this.leader), '--all', '/usr/bin/env', '-i', `PATH=${SYSTEM_PATH}`, 'LANG=C.UTF-8', 'HOME=/root', 'TERM=dumb', '/bin/bash', '-c', script];
    try {
      const { stdout, stderr } = await run('nsenter', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
      return { code: 0, output: `${stdout}${stderr}` };
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean };
      const code = typeof failed.code === 'number' ? failed.code : -1;
      return { code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}${failed.killed ? `\n(stopped after ${timeoutMs} ms)` : ''}` };
    }
  }

  /** Fails with the output when the script does. */
  async ok(script: string, timeoutMs?: number): Promise<string> {
    const result = await this.run(script, timeoutMs);
    if (result.code !== 0) throw new Error(`on the ${this.release} machine, exit ${result.code}: ${script}\n${result.output}`);
    return result.output;
  }

  /** Shuts the machine down as systemd does (nspawn turns SIGTERM into a poweroff), killed when it hangs. */
  async stop(): Promise<void> {
    if (this.nspawn.exitCode !== null || this.nspawn.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.nspawn.once('exit', () => resolve()));
    this.nspawn.kill('SIGTERM');
    const timer = setTimeout(() => this.nspawn.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Whether a process is PID 1 of its own PID namespace (its status's NSpid ends in 1). */
async function isNamespaceInit(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const ids = /^NSpid:\s*(.+)$/m.exec(status)?.[1]?.trim().split(/\s+/) ?? [];
  return ids.length > 1 && ids.at(-1) === '1';
}

/**
 * Puts every .deb that `packages` need into the tree's apt archive: from the cache where it has
 * them, the rest fetched on this machine's network (chroot, `apt-get install --download-only`)
 * and kept in the cache for the next run.
 */
async function fetchPackages(release: DebianRelease, tree: string, packages: string[]): Promise<void> {
  const cache = path.join(testCache, `${release}-debs`);
  const archives = path.join(tree, 'var/cache/apt/archives');
  await linkFiles(cache, archives, await debsIn(cache));
  await cp('/etc/resolv.conf', path.join(tree, 'etc/resolv.conf'));
  await run('chroot', [tree, 'apt-get', 'update', '-q'], { env: chrootEnv, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  await run('chroot', [tree, 'apt-get', 'install', '--download-only', '-y', '-q', '--no-install-recommends', ...packages], { env: chrootEnv, timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 });
  await linkFiles(archives, cache, await debsIn(archives));
}
