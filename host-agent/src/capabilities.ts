import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

/** Availability of one host facility, as InfoService reports it. */
export interface CapabilityState {
  available: boolean;
  /** A version or address when available, the reason when not. */
  detail: string;
}

/** Where each facility is expected; from the agent's config. */
export interface CapabilityTargets {
  dockerSocket: string;
  caddyAdminUrl: string;
  mysqlUrl: string | undefined;
  chromiumPath: string;
  wgBinary: string;
  /** Upper bound per probe, so GetInfo stays fast when a facility hangs. */
  timeoutMs: number;
}

export interface CapabilityReport {
  docker: CapabilityState;
  proxy: CapabilityState;
  mysql: CapabilityState;
  chromium: CapabilityState;
  wireguard: CapabilityState;
}

const available = (detail: string): CapabilityState => ({ available: true, detail });
const unavailable = (detail: string): CapabilityState => ({ available: false, detail });

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** GET over the Docker engine's unix socket (plain HTTP; no Docker client library needed). */
function dockerGet(socketPath: string, urlPath: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ socketPath, path: urlPath, timeout: timeoutMs, headers: { host: 'docker' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

/** Docker: available when the engine answers `GET /_ping` with OK; detail is its version. */
export async function probeDocker(socketPath: string, timeoutMs: number): Promise<CapabilityState> {
  try {
    const ping = await dockerGet(socketPath, '/_ping', timeoutMs);
    if (ping.status !== 200) return unavailable(`Docker engine at ${socketPath} answered /_ping with HTTP ${ping.status}`);
    try {
      const version = JSON.parse((await dockerGet(socketPath, '/version', timeoutMs)).body) as { Version?: string; ApiVersion?: string };
      return available(`Docker ${version.Version ?? '?'} (API ${version.ApiVersion ?? '?'}) at ${socketPath}`);
    } catch {
      return available(`Docker engine at ${socketPath}`);
    }
  } catch (error) {
    return unavailable(`Docker engine at ${socketPath} not reachable (${describe(error)})`);
  }
}

/** Proxy: available when Caddy's admin API answers at all (any HTTP status). */
export async function probeProxy(adminUrl: string, timeoutMs: number): Promise<CapabilityState> {
  const configUrl = new URL('/config/', adminUrl);
  try {
    const response = await fetch(configUrl, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return available(`Caddy admin API at ${configUrl.origin} (HTTP ${response.status})`);
  } catch (error) {
    const reason = error instanceof Error && error.cause ? describe(error.cause) : describe(error);
    return unavailable(`Caddy admin API at ${configUrl.origin} not reachable (${reason})`);
  }
}

/** Opens a TCP connection (or a unix socket connection) and closes it again. */
function canConnect(options: net.NetConnectOpts, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(options);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * MySQL: available when AGENT_MYSQL_URL is set and its server accepts a connection (TCP, or the
 * unix socket named by a `socket` query parameter). Credentials are never put in the detail.
 */
export async function probeMysql(mysqlUrl: string | undefined, timeoutMs: number): Promise<CapabilityState> {
  if (!mysqlUrl) return unavailable('AGENT_MYSQL_URL is not set');
  const url = new URL(mysqlUrl);
  const socketPath = url.searchParams.get('socket');
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 3306);
  const where = socketPath ?? `${host}:${port}`;
  try {
    await canConnect(socketPath ? { path: socketPath } : { host, port }, timeoutMs);
    return available(`MySQL server at ${where}`);
  } catch (error) {
    return unavailable(`MySQL server at ${where} not reachable (${describe(error)})`);
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds a command: an absolute or relative path as given, a bare name on PATH. */
export async function findExecutable(command: string, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (command.includes('/')) return (await isExecutable(command)) ? command : undefined;
  for (const directory of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(directory, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Chromium: available when the browser binary is installed and executable. */
export async function probeChromium(chromiumPath: string): Promise<CapabilityState> {
  return (await isExecutable(chromiumPath))
    ? available(`Chromium at ${chromiumPath}`)
    : unavailable(`Chromium not found at ${chromiumPath} (Debian: apt-get install chromium)`);
}

/** WireGuard: available when the `wg` tool is installed. */
export async function probeWireguard(wgBinary: string): Promise<CapabilityState> {
  const found = await findExecutable(wgBinary);
  return found ? available(`wg at ${found}`) : unavailable(`${wgBinary} not found (Debian: apt-get install wireguard-tools)`);
}

/** Probes every facility in parallel; never throws, each probe bounded by `timeoutMs`. */
export async function probeCapabilities(targets: CapabilityTargets): Promise<CapabilityReport> {
  const [docker, proxy, mysql, chromium, wireguard] = await Promise.all([
    probeDocker(targets.dockerSocket, targets.timeoutMs),
    probeProxy(targets.caddyAdminUrl, targets.timeoutMs),
    probeMysql(targets.mysqlUrl, targets.timeoutMs),
    probeChromium(targets.chromiumPath),
    probeWireguard(targets.wgBinary),
  ]);
  return { docker, proxy, mysql, chromium, wireguard };
}
