import { X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, statfs } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DockerEngine } from '../docker/engine.ts';
import { AGENT_BACKUP_STATUS_FILE, agentBackupStatusSchema } from '@devplein/contract/backups';

/** One part of the host: ok, or not with a short reason (HostStats' PartHealth). */
export interface PartState {
  ok: boolean;
  detail: string;
}

export interface DiskState {
  name: string;
  path: string;
  totalBytes: number;
  availableBytes: number;
  ok: boolean;
  error: string;
}

export interface StateCount {
  state: string;
  count: number;
}

export interface ContainerCountState {
  known: boolean;
  total: number;
  managed: number;
  byState: StateCount[];
  managedByState: StateCount[];
}

export interface DockerFacts {
  health: PartState;
  containers: ContainerCountState;
  /** Docker's data root (`docker info` DockerRootDir); undefined when the engine did not say. */
  dataRoot: string | undefined;
}

export interface CertificateState {
  ok: boolean;
  notAfter: Date | undefined;
  detail: string;
}

/** The last backup of this host (HostStats' LastBackup); known = false when none is recorded. */
export interface LastBackupState {
  known: boolean;
  finishedAt: Date | undefined;
  ok: boolean;
  sizeBytes: number;
  message: string;
  /** The last successful run's end (this run's when it succeeded); undefined when none is known. */
  lastSuccessAt: Date | undefined;
}

const ok = (detail: string): PartState => ({ ok: true, detail });
const broken = (detail: string): PartState => ({ ok: false, detail });

/** The error's code and message in one short line. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const text = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
    return text.length > 200 ? `${text.slice(0, 197)}…` : text;
  }
  return String(error);
}

export class ProbeTimeoutError extends Error {
  constructor(ms: number) {
    super(`geen antwoord binnen ${ms} ms`);
  }
}

/** `work`, or a ProbeTimeoutError after `ms` (the work itself is left to finish or fail unseen). */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new ProbeTimeoutError(ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

function countBy(states: string[]): StateCount[] {
  const counts = new Map<string, number>();
  for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
  return [...counts].map(([state, count]) => ({ state, count })).sort((a, b) => a.state.localeCompare(b.state));
}

const noContainers: ContainerCountState = { known: false, total: 0, managed: 0, byState: [], managedByState: [] };

/**
 * The Docker engine: ping, its version and data root (`docker info`), and every container's state
 * (all of them, and those labelled devplein.managed=true). Each step within `timeoutMs`.
 */
export async function dockerFacts(docker: DockerEngine, timeoutMs: number): Promise<DockerFacts> {
  try {
    await withTimeout(docker.ping(), timeoutMs);
  } catch (error) {
    return { health: broken(`Docker antwoordt niet (${describeError(error)})`), containers: noContainers, dataRoot: undefined };
  }
  const [info, list] = await Promise.allSettled([
    withTimeout(docker.info(), timeoutMs),
    withTimeout(docker.listContainers({ all: true }), timeoutMs),
  ]);
  const version = info.status === 'fulfilled' ? info.value.ServerVersion : undefined;
  const dataRoot = info.status === 'fulfilled' ? info.value.DockerRootDir : undefined;
  if (list.status === 'rejected') {
    return { health: broken(`Docker antwoordt, maar de containers zijn niet te lezen (${describeError(list.reason)})`), containers: noContainers, dataRoot };
  }
  const containers = list.value;
  const managed = containers.filter((container) => container.Labels?.['devplein.managed'] === 'true');
  return {
    health: ok(version ? `Docker ${version}` : 'Docker antwoordt'),
    containers: {
      known: true,
      total: containers.length,
      managed: managed.length,
      byState: countBy(containers.map((container) => container.State)),
      managedByState: countBy(managed.map((container) => container.State)),
    },
    dataRoot,
  };
}

/**
 * MySQL/MariaDB: a fresh connection with the agent's admin account answers a ping. Credentials
 * never appear in the detail.
 */
export async function mysqlPing(mysqlUrl: string | undefined, timeoutMs: number): Promise<PartState> {
  if (!mysqlUrl) return broken('geen MySQL/MariaDB ingesteld (AGENT_MYSQL_URL)');
  const url = new URL(mysqlUrl);
  const where = url.searchParams.get('socket') ?? `${url.hostname || '127.0.0.1'}:${url.port || 3306}`;
  // Loaded only when asked (≈ 15 MB), as the database driver does.
  const { createConnection } = (await import('mysql2/promise')).default;
  const connecting = createConnection({ uri: mysqlUrl, connectTimeout: timeoutMs });
  try {
    const connection = await withTimeout(connecting, timeoutMs);
    try {
      await withTimeout(connection.ping(), timeoutMs);
      const [rows] = await withTimeout(connection.query('SELECT VERSION() AS version'), timeoutMs);
      const version = (rows as Array<{ version?: string }>)[0]?.version;
      return ok(version ? `MariaDB/MySQL ${version} op ${where}` : `MariaDB/MySQL op ${where}`);
    } finally {
      connection.destroy();
    }
  } catch (error) {
    // A connection that arrives after the time limit is closed again.
    connecting.then((late) => late.destroy()).catch(() => undefined);
    return broken(`MariaDB/MySQL op ${where} antwoordt niet (${describeError(error)})`);
  }
}

/** Opens a TCP connection and closes it again. */
function canConnect(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new ProbeTimeoutError(timeoutMs)));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * The screenshot browser: with a browser server (AGENT_BROWSER_SERVER) it must accept a
 * connection; without one, Chromium must be installed (the agent starts it on demand).
 */
export async function browserPresence(options: { server: string | undefined; chromiumPath: string; timeoutMs: number }): Promise<PartState> {
  if (options.server) {
    const [host = '127.0.0.1', port = '0'] = options.server.split(':');
    try {
      await canConnect(host, Number(port), options.timeoutMs);
      return ok(`browserserver op ${options.server}`);
    } catch (error) {
      return broken(`browserserver op ${options.server} antwoordt niet (${describeError(error)})`);
    }
  }
  try {
    await withTimeout(access(options.chromiumPath, constants.X_OK), options.timeoutMs);
    return ok(`Chromium op ${options.chromiumPath}`);
  } catch (error) {
    return broken(`Chromium ontbreekt op ${options.chromiumPath} (${describeError(error)})`);
  }
}

/** IFF_UP in /sys/class/net/{interface}/flags. */
const IFF_UP = 0x1;

/**
 * WireGuard: the server interface exists and is up (kernel or wireguard-go: both show in
 * /sys/class/net). `sysNet` is for tests.
 */
export async function wireguardInterface(interfaceName: string, timeoutMs: number, sysNet = '/sys/class/net'): Promise<PartState> {
  try {
    const flags = Number.parseInt((await withTimeout(readFile(path.join(sysNet, interfaceName, 'flags'), 'utf8'), timeoutMs)).trim(), 16);
    return (flags & IFF_UP) !== 0 ? ok(`interface ${interfaceName} is up`) : broken(`interface ${interfaceName} is down`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return broken(`interface ${interfaceName} bestaat niet`);
    return broken(`interface ${interfaceName} niet te lezen (${describeError(error)})`);
  }
}

/**
 * Size and free space of the file system holding `target` (statfs). A path not made yet (the
 * agent makes its data dir on first use) is measured at its nearest existing parent, where its
 * files will land; `path` says which path was measured.
 */
export async function diskUsage(name: string, target: string, timeoutMs: number): Promise<DiskState> {
  let measured = path.resolve(target);
  try {
    for (;;) {
      try {
        const stats = await withTimeout(statfs(measured), timeoutMs);
        return { name, path: measured, totalBytes: stats.blocks * stats.bsize, availableBytes: stats.bavail * stats.bsize, ok: true, error: '' };
      } catch (error) {
        const parent = path.dirname(measured);
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === measured) throw error;
        measured = parent;
      }
    }
  } catch (error) {
    return { name, path: measured, totalBytes: 0, availableBytes: 0, ok: false, error: describeError(error) };
  }
}

/** notAfter of the (first) certificate in a PEM file. */
export async function certificateExpiry(certPath: string): Promise<CertificateState> {
  try {
    const certificate = new X509Certificate(await readFile(certPath));
    return { ok: true, notAfter: new Date(certificate.validTo), detail: certificate.subject.replace(/\n/g, ', ') };
  } catch (error) {
    return { ok: false, notAfter: undefined, detail: `certificaat ${certPath} niet te lezen (${describeError(error)})` };
  }
}

/** Host CPU load and memory (Linux MemAvailable through libuv). */
export function cpuAndMemory(): { cpu: { cores: number; load1m: number; load5m: number; load15m: number }; memory: { totalBytes: number; availableBytes: number } } {
  const [load1m = 0, load5m = 0, load15m = 0] = os.loadavg();
  return {
    cpu: { cores: os.availableParallelism(), load1m, load5m, load15m },
    memory: { totalBytes: os.totalmem(), availableBytes: os.freemem() },
  };
}

/**
 * What the last `devplein backup --role agent` left in the data dir. No file: no backup recorded
 * (known = false). A file that cannot be read or parsed is a known, failed backup: the status page
 * must not call a broken record "no backup yet".
 */
export async function lastBackup(dataDir: string): Promise<LastBackupState> {
  let text: string;
  try {
    text = await readFile(path.join(dataDir, AGENT_BACKUP_STATUS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { known: false, finishedAt: undefined, ok: false, sizeBytes: 0, message: '', lastSuccessAt: undefined };
    return { known: true, finishedAt: undefined, ok: false, sizeBytes: 0, message: `${AGENT_BACKUP_STATUS_FILE} niet te lezen (${describeError(error)})`, lastSuccessAt: undefined };
  }
  let parsed: ReturnType<typeof agentBackupStatusSchema.safeParse>;
  try {
    parsed = agentBackupStatusSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = agentBackupStatusSchema.safeParse(undefined);
  }
  if (!parsed.success) return { known: true, finishedAt: undefined, ok: false, sizeBytes: 0, message: `${AGENT_BACKUP_STATUS_FILE} is geen geldige status`, lastSuccessAt: undefined };
  const status = parsed.data;
  const finishedAt = new Date(status.finishedAt);
  const lastSuccessAt = status.ok ? finishedAt : status.lastSuccessAt ? new Date(status.lastSuccessAt) : undefined;
  return { known: true, finishedAt, ok: status.ok, sizeBytes: status.sizeBytes ?? 0, message: status.message, lastSuccessAt };
}
