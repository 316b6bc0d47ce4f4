import { z } from 'zod';

/** Log levels pino knows; LOG_LEVEL must be one of them. */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const hostPort = z
  .string()
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { error: 'expected host:port, e.g. 127.0.0.1:7443', abort: true })
  .refine((value) => Number(value.slice(value.lastIndexOf(':') + 1)) <= 65_535, 'port must be 0-65535');

const filePath = (name: string) => z.string({ error: `${name} is required (a file path)` }).trim().min(1, `${name} is required (a file path)`);

const milliseconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * The agent's environment. Parsed once at start-up; a bad value stops the agent with a message
 * naming the variable, never a half-configured agent.
 */
const environmentSchema = z.object({
  AGENT_LISTEN: hostPort.default('127.0.0.1:7443'),
  AGENT_TLS_CA: filePath('AGENT_TLS_CA'),
  AGENT_TLS_CERT: filePath('AGENT_TLS_CERT'),
  AGENT_TLS_KEY: filePath('AGENT_TLS_KEY'),
  AGENT_ALLOWED_CLIENTS: z
    .string()
    .default('devplein-control-plane')
    .transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean))
    .refine((names) => names.length > 0, 'name at least one client certificate CN'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  AGENT_DOCKER_SOCKET: z.string().min(1).default('/var/run/docker.sock'),
  AGENT_CADDY_ADMIN: z.url({ protocol: /^https?$/, error: 'AGENT_CADDY_ADMIN must be an http(s):// URL' }).default('http://127.0.0.1:2019'),
  AGENT_MYSQL_URL: z
    .url({ protocol: /^(mysql|mariadb)$/, error: 'AGENT_MYSQL_URL must be a mysql:// URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  AGENT_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  AGENT_WG_BINARY: z.string().min(1).default('wg'),
  AGENT_PROBE_TIMEOUT_MS: milliseconds(1_000),
  AGENT_SHUTDOWN_TIMEOUT_MS: milliseconds(10_000),
});

/** What the agent runs with; see `loadConfig`. */
export interface AgentConfig {
  /** host:port the gRPC server binds; port 0 takes a free port (logged in the "listening" line). */
  listen: string;
  tls: { caPath: string; certPath: string; keyPath: string };
  /** Client certificate common names that may call the agent. */
  allowedClients: string[];
  logLevel: (typeof logLevels)[number];
  dockerSocket: string;
  caddyAdminUrl: string;
  /** Unset when this host has no MySQL for students. */
  mysqlUrl: string | undefined;
  chromiumPath: string;
  /** `wg` command: an absolute path or a name looked up on PATH. */
  wgBinary: string;
  probeTimeoutMs: number;
  shutdownTimeoutMs: number;
}

/** Thrown by loadConfig; its message lists every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the agent's configuration from environment variables (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`);
    throw new ConfigError(`invalid agent configuration:\n  ${problems.join('\n  ')}`);
  }
  const values = parsed.data;
  return {
    listen: values.AGENT_LISTEN,
    tls: { caPath: values.AGENT_TLS_CA, certPath: values.AGENT_TLS_CERT, keyPath: values.AGENT_TLS_KEY },
    allowedClients: values.AGENT_ALLOWED_CLIENTS,
    logLevel: values.LOG_LEVEL,
    dockerSocket: values.AGENT_DOCKER_SOCKET,
    caddyAdminUrl: values.AGENT_CADDY_ADMIN,
    mysqlUrl: values.AGENT_MYSQL_URL,
    chromiumPath: values.AGENT_CHROMIUM_PATH,
    wgBinary: values.AGENT_WG_BINARY,
    probeTimeoutMs: values.AGENT_PROBE_TIMEOUT_MS,
    shutdownTimeoutMs: values.AGENT_SHUTDOWN_TIMEOUT_MS,
  };
}
