/**
 * Caddy's access log as the agent's source of site activity: the Caddy JSON that ships the
 * managed server's access log to the agent, and the reading of one log line.
 *
 * Checked against Debian's Caddy 2.6.2: a server gets access logging with `logs`
 * (`default_logger_name: X` names its logger `http.log.access.X`); a custom log under
 * `logging.logs` with `include: ["http.log.access.X"]`, the JSON encoder and a `net` writer sends
 * each entry to a socket. 2.6's net writer has no `soft_start`: a TCP destination that does not
 * answer when a config loads makes the whole load fail (every route change, or Caddy's start),
 * so the agent listens on UDP, which never refuses at load time. Caddy's default log would get
 * every access line too, so the agent's logger is excluded from it.
 */

/** Header the agent's screenshot browser sends; its requests are not a visitor's. */
export const SCREENSHOT_HEADER = 'X-Devplein-Screenshot';

/** Name (under `http.log.access.`) of the access logger of the agent's managed server. */
export function accessLoggerName(server: string): string {
  return `devplein_activity_${server}`;
}

/** The full logger name Caddy uses for the managed server's access log entries. */
export function accessLoggerPath(server: string): string {
  return `http.log.access.${accessLoggerName(server)}`;
}

/** One request a visitor made, as the agent counts it. */
export interface SiteRequest {
  /** Host the request asked for: lower-case, without port or trailing dot. */
  host: string;
  /** Sent by the agent's own screenshot browser (not activity). */
  fromScreenshotter: boolean;
}

/** `Blog.Dev.NL:8080.` → `blog.dev.nl`; undefined for an empty host or an IPv6 literal. */
export function normaliseHost(raw: string): string | undefined {
  const host = raw.trim().toLowerCase();
  if (host === '' || host.startsWith('[')) return undefined;
  const name = host.replace(/:\d*$/, '').replace(/\.$/, '');
  return name === '' ? undefined : name;
}

function headerValues(headers: unknown, name: string): string[] {
  if (typeof headers !== 'object' || headers === null) return [];
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) values.push(...value.filter((entry): entry is string => typeof entry === 'string'));
    else if (typeof value === 'string') values.push(value);
  }
  return values;
}

/**
 * Reads one access log line of `loggerPath`; undefined for anything else (other loggers, lines
 * that are not JSON, entries without a host). `screenshotToken` is the value the agent's browser
 * sends in SCREENSHOT_HEADER; a request carrying another value is a visitor's like any other.
 */
export function parseAccessLine(line: string, loggerPath: string, screenshotToken: string): SiteRequest | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { logger, request } = entry as { logger?: unknown; request?: unknown };
  if (logger !== loggerPath || typeof request !== 'object' || request === null) return undefined;
  const { host: rawHost, headers } = request as { host?: unknown; headers?: unknown };
  const host = typeof rawHost === 'string' ? normaliseHost(rawHost) : undefined;
  if (!host) return undefined;
  return { host, fromScreenshotter: headerValues(headers, SCREENSHOT_HEADER).includes(screenshotToken) };
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the managed server's access log should go; undefined: nowhere (idle auto-stop off). */
export interface AccessLogTarget {
  server: string;
  /** host:port of the agent's UDP listener. */
  address: string;
}

/**
 * Caddy's `logging` object with the agent's access log set up (or, with `target` undefined,
 * taken out again), everything else as it was: a sysadmin's own logs are kept, and the agent's
 * logger is added to (or removed from) the default log's `exclude` list only.
 */
export function withAccessLog(logging: unknown, server: string, target: AccessLogTarget | undefined): Json {
  const current = isObject(logging) ? logging : {};
  const logs: Json = isObject(current.logs) ? { ...current.logs } : {};
  const key = accessLoggerName(server);
  const path = accessLoggerPath(server);
  const defaultLog: Json = isObject(logs.default) ? { ...logs.default } : {};
  const excluded = Array.isArray(defaultLog.exclude) ? defaultLog.exclude.filter((name) => name !== path) : [];
  if (target) {
    logs[key] = {
      writer: { output: 'net', address: `udp/${target.address}` },
      encoder: { format: 'json' },
      include: [path],
    };
    if (defaultIncludes(defaultLog, path)) defaultLog.exclude = [...excluded, path];
  } else {
    delete logs[key];
    if (excluded.length > 0) defaultLog.exclude = excluded;
    else delete defaultLog.exclude;
  }
  if (Object.keys(defaultLog).length > 0) logs.default = defaultLog;
  else delete logs.default;
  const next: Json = { ...current, logs };
  if (Object.keys(logs).length === 0) delete next.logs;
  return next;
}

/** Whether Caddy's default log would also write `path` (no `include`, or one that covers it). */
function defaultIncludes(defaultLog: Json, path: string): boolean {
  const include = Array.isArray(defaultLog.include) ? defaultLog.include.filter((name): name is string => typeof name === 'string') : [];
  return include.length === 0 || include.some((name) => path === name || path.startsWith(`${name}.`));
}

/**
 * The managed server's `logs` object: access logging on with the agent's logger as its default
 * (other settings kept), or, with `enabled` false, the agent's logger name taken out again (a
 * `logs` the agent did not set is left alone). undefined means no `logs` at all.
 */
export function withServerLogs(logs: unknown, server: string, enabled: boolean): Json | undefined {
  const current = isObject(logs) ? logs : undefined;
  const name = accessLoggerName(server);
  if (enabled) return { ...current, default_logger_name: name };
  if (current?.default_logger_name !== name) return current;
  const rest = Object.fromEntries(Object.entries(current).filter(([key]) => key !== 'default_logger_name'));
  return Object.keys(rest).length > 0 ? rest : undefined;
}
