/**
 * A Docker engine of one test's own, for tests that must stop or restart the engine: the shared
 * one at /var/run/docker.sock serves every other test file (and other people) at the same time
 * and must never go down. This one has its own socket, data root, exec root (with its own
 * managed containerd), pid file and config file in a temp dir; a default bridge of its own on a
 * /24 no route of this host uses, and no iptables rules (published ports go through
 * docker-proxy, user networks still work). Two flags are avoided on purpose, because with them
 * dockerd deletes the HOST's `docker0` (hard-coded), which the shared engine's default network
 * needs: `--bridge=none` (at every start) and `--default-address-pool` (at every restart, when
 * it clears its stale default network). User networks take Docker's default pools, which skip
 * subnets already routed on the host. Images come from `docker import` of a
 * busybox root filesystem (scripts/lib/busybox-image.ts): nothing is ever pulled.
 *
 * Needs root. A detached watchdog stops the engine and removes its files if the test process
 * dies without calling destroy().
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { findExecutable } from './system-deps.ts';
import { waitFor } from '../clients/ports.ts';

const execFileAsync = promisify(execFile);

export interface PrivateDockerd {
  /** `unix:///…/docker.sock`: for `docker -H`, DOCKER_HOST and the busybox image helpers. */
  host: string;
  /** The socket's path (the agent's AGENT_DOCKER_SOCKET). */
  socket: string;
  /** dockerode on this engine. */
  docker: Docker;
  /** Runs the `docker` CLI against this engine; resolves with stdout. */
  cli(args: string[]): Promise<string>;
  /** Whether the engine answers a ping now. */
  answers(): Promise<boolean>;
  /** SIGTERM, as `systemctl stop docker` does: the engine stops its containers and exits. Resolves once it has exited. */
  stopDaemon(): Promise<void>;
  /** Starts the engine again on the same socket and data; resolves once it answers. */
  startDaemon(): Promise<void>;
  /** The engine's log so far (for failure messages). */
  log(): string;
  /** Removes every container, stops the engine and deletes its files. Safe to call twice. */
  destroy(): Promise<void>;
}

/** A /16 under 10.0.0.0/8 that no route of this host (nor the shared engine's networks) touches. */
async function freeAddressRange(): Promise<string> {
  const { stdout } = await execFileAsync('ip', ['-4', 'route', 'show', 'table', 'all']).catch(() => ({ stdout: '' }));
  const taken = new Set([...stdout.matchAll(/\b10\.(\d{1,3})\./g)].map((match) => Number(match[1])));
  const candidates = Array.from({ length: 80 }, (_, index) => 160 + index).filter((octet) => !taken.has(octet));
  const octet = candidates[Math.floor(Math.random() * candidates.length)];
  if (octet === undefined) throw new Error('no free 10.x.0.0/16 for a private Docker engine');
  return `10.${octet}.0.0/16`;
}

async function pidFromFile(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface PrivateDockerdOptions {
  /**
   * The engine's data root, when it must live on a file system of the test's choosing (an XFS
   * mounted with pquota for disk limits). The caller owns it (and unmounts it after destroy());
   * by default a folder in the engine's own temp dir.
   */
  dataRoot?: string;
  /** `--storage-driver` (e.g. btrfs on a btrfs data root); by default the engine picks (overlay2). */
  storageDriver?: string;
}

/** Starts a private dockerd (as root) and waits until it answers. */
export async function startPrivateDockerd(options: PrivateDockerdOptions = {}): Promise<PrivateDockerd> {
  if (process.getuid?.() !== 0) throw new Error('a private Docker engine needs root');
  const found = findExecutable('dockerd', ['/usr/sbin', '/usr/bin']);
  if (!found) throw new Error('dockerd is not installed: apt-get install -y docker.io');
  const dockerd: string = found;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-dockerd-'));
  const socket = path.join(dir, 'docker.sock');
  const host = `unix://${socket}`;
  const pidFile = path.join(dir, 'docker.pid');
  const logFile = path.join(dir, 'dockerd.log');
  const configFile = path.join(dir, 'daemon.json');
  // Its own (empty) config: a host's /etc/docker/daemon.json must not give it the shared engine's socket or data.
  await writeFile(configFile, '{}\n');
  // Its default bridge, made here and removed again by destroy() and the watchdog.
  const bridge = `dvpd${Math.random().toString(36).slice(2, 8)}`;
  const bridgeAddress = (await freeAddressRange()).replace(/\.0\.0\/16$/, '.0.1/24');
  await execFileAsync('ip', ['link', 'add', bridge, 'type', 'bridge']);
  await execFileAsync('ip', ['addr', 'add', bridgeAddress, 'dev', bridge]);
  await execFileAsync('ip', ['link', 'set', bridge, 'up']);
  const removeBridge = () => execFileAsync('ip', ['link', 'del', bridge]).then(() => undefined, () => undefined);
  const args = [
    '--host', host,
    '--config-file', configFile,
    '--data-root', options.dataRoot ?? path.join(dir, 'data'),
    '--exec-root', path.join(dir, 'exec'),
    '--pidfile', pidFile,
    ...(options.storageDriver ? ['--storage-driver', options.storageDriver] : []),
    `--bridge=${bridge}`,
    '--iptables=false',
    // Only engines that know it (20.10 and later) take the flag; older ones add no ip6tables rules anyway.
    ...((await execFileAsync(dockerd, ['--help'])).stdout.includes('--ip6tables') ? ['--ip6tables=false'] : []),
  ];
  const docker = new Docker({ socketPath: socket });
  const env = { ...process.env, DOCKER_HOST: host };

  const answers = async (): Promise<boolean> => {
    if (!existsSync(socket)) return false;
    try {
      await docker.ping();
      return true;
    } catch {
      return false;
    }
  };

  let exitReason: string | undefined;
  async function startDaemon(): Promise<void> {
    exitReason = undefined;
    const log = openSync(logFile, 'a');
    const child = spawn(dockerd, args, { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    child.unref();
    child.once('exit', (code, signal) => {
      exitReason = `dockerd exited with ${code ?? signal}`;
    });
    child.once('error', (error) => {
      exitReason = `could not start dockerd: ${error.message}`;
    });
    await waitFor(answers, {
      description: `the private dockerd to answer on ${socket}`,
      timeoutMs: 60_000,
      intervalMs: 100,
      giveUpIf: () => (exitReason ? `${exitReason}\n${readLog().slice(-3000)}` : undefined),
    });
  }

  async function stopDaemon(): Promise<void> {
    const pid = await pidFromFile(pidFile);
    if (pid === undefined || !alive(pid)) return;
    process.kill(pid, 'SIGTERM');
    // Its shutdown waits for each container's stop timeout (10 s) before SIGKILL, then for containerd.
    await waitFor(() => !alive(pid), { description: `dockerd ${pid} to exit`, timeoutMs: 60_000, intervalMs: 100 });
  }

  const readLog = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };

  await startDaemon().catch(async (error: unknown) => {
    await stopDaemon().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await removeBridge();
    throw error;
  });

  // If this process dies without destroy(): stop the engine (it stops its containers), then remove its files.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; pid=$(cat "$2" 2>/dev/null); ' +
        'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i+1)); done; fi; ' +
        'rm -rf --one-file-system "$3"; ip link del "$4" 2>/dev/null',
      'dockerd-watchdog',
      String(process.pid),
      pidFile,
      dir,
      bridge,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  let destroying: Promise<void> | undefined;
  return {
    host,
    socket,
    docker,
    async cli(cliArgs) {
      try {
        const { stdout } = await execFileAsync('docker', cliArgs, { env, maxBuffer: 16 * 1024 * 1024 });
        return stdout;
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr ?? '';
        throw new Error(`docker -H ${host} ${cliArgs.join(' ')} failed: ${stderr || String(error)}`, { cause: error });
      }
    },
    answers,
    stopDaemon,
    startDaemon,
    log: readLog,
    destroy() {
      destroying ??= (async () => {
        try {
          if (await answers()) {
            for (const container of await docker.listContainers({ all: true })) {
              await docker.getContainer(container.Id).remove({ force: true, v: true }).catch(() => undefined);
            }
            // A stopped engine leaves its networks' br-… links on the host: remove the networks first.
            for (const network of await docker.listNetworks()) {
              if (!['bridge', 'host', 'none'].includes(network.Name)) await docker.getNetwork(network.Id).remove().catch(() => undefined);
            }
          }
          await stopDaemon();
        } finally {
          if (watchdog.pid !== undefined) {
            try {
              process.kill(-watchdog.pid, 'SIGTERM');
            } catch {
              // already gone
            }
          }
          // --one-file-system: never descend into a mount the engine might have left behind.
          await execFileAsync('rm', ['-rf', '--one-file-system', dir]).catch(() => undefined);
          await removeBridge();
        }
      })();
      return destroying;
    },
  };
}
