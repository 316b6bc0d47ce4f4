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

const durationUnits: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/**
 * A duration as a sysadmin writes it: `7d`, `12h`, `30m`, `45s` or a combination in that order
 * (`1d12h`); `0` or empty is 0 (off). Milliseconds; undefined when the text is none of these.
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (value === '' || value === '0') return 0;
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!match || match.slice(1).every((part) => part === undefined)) return undefined;
  return ['d', 'h', 'm', 's'].reduce((sum, unit, index) => sum + Number(match[index + 1] ?? 0) * (durationUnits[unit] ?? 0), 0);
}

const sizeUnits: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * A size as Docker and sysadmins write it: `2G`, `512M`, `1.5g`, `2GB`, `1073741824` (units are
 * powers of 1024, as in Docker's own size options). Bytes; undefined when the text is none of these.
 */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * (sizeUnits[(match[2] ?? '').toLowerCase()] ?? Number.NaN));
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** The smallest disk limit accepted: below this no image's own start-up writes fit. */
const MIN_DISK_LIMIT = 64 * 1024 ** 2;

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, context) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        context.addIssue({ code: 'custom', message: `expected a duration such as 7d, 12h, 30m or 1d12h (0 = off), got ${JSON.stringify(text)}` });
        return z.NEVER;
      }
      return ms;
    });

/** What the VPN firewall lets through to the allowed networks (AGENT_WG_FIREWALL_ALLOW). */
export type FirewallAllow = { protocol: 'tcp' | 'udp'; firstPort: number; lastPort: number } | { protocol: 'icmp' } | { protocol: 'all' };

/**
 * `tcp/3306,udp/53,tcp/8000-8100,icmp` as rules; `all` admits every protocol and port (the
 * whole networks, as before this setting). Undefined when any part is none of these.
 */
export function parseFirewallAllow(text: string): FirewallAllow[] | undefined {
  const parts = text.split(',').map((part) => part.trim().toLowerCase()).filter(Boolean);
  if (parts.length === 0) return undefined;
  const rules: FirewallAllow[] = [];
  for (const part of parts) {
    if (part === 'icmp' || part === 'all') {
      rules.push({ protocol: part });
      continue;
    }
    const match = /^(tcp|udp)\/(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!match) return undefined;
    const firstPort = Number(match[2]);
    const lastPort = Number(match[3] ?? match[2]);
    if (firstPort < 1 || lastPort > 65_535 || firstPort > lastPort) return undefined;
    rules.push({ protocol: match[1] as 'tcp' | 'udp', firstPort, lastPort });
  }
  return rules;
}

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
  AGENT_MYSQL_MAX_USER_CONNECTIONS: z.coerce.number().int().min(1).max(1_000).default(10),
  AGENT_MYSQL_USER_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.%:_-]{1,255}$/, 'a MySQL account host: %, localhost, an address or a pattern like 10.8.0.%')
    .default('%'),
  AGENT_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  AGENT_WG_BINARY: z.string().min(1).default('wg'),
  AGENT_WG_GO_BINARY: z.string().min(1).default('wireguard-go'),
  AGENT_IPTABLES_BINARY: z.string().min(1).default('iptables'),
  AGENT_WG_INTERFACE: z
    .string()
    .regex(/^[a-zA-Z0-9_=+.-]{1,15}$/, 'an interface name of at most 15 characters, e.g. wg0')
    .default('wg0'),
  AGENT_WG_LISTEN_PORT: z.coerce.number().int().min(1).max(65_535).default(51_820),
  AGENT_WG_ENDPOINT: z
    .string()
    .trim()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'expected host or host:port clients dial, e.g. vpn.school.nl:51820')
    .optional(),
  AGENT_WG_ADDRESS_POOL: z
    .string()
    .trim()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/(1[6-9]|2[0-9]|30)$/, 'an IPv4 network /16-/30, e.g. 10.8.0.0/24')
    .default('10.8.0.0/24'),
  AGENT_WG_ALLOWED_NETWORKS: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(',').map((part) => part.trim()).filter(Boolean))
    .refine(
      (networks) => networks.every((network) => /^\d{1,3}(\.\d{1,3}){3}\/(8|9|[12][0-9]|3[0-2])$/.test(network)),
      'a comma-separated list of IPv4 networks (CIDR), never 0.0.0.0/0',
    ),
  AGENT_WG_DNS: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)),
  AGENT_WG_FIREWALL: z.enum(['iptables', 'off']).default('iptables'),
  AGENT_WG_FIREWALL_ALLOW: z
    .string()
    .default('tcp/3306')
    .transform((value, context) => {
      const rules = parseFirewallAllow(value);
      if (rules === undefined) {
        context.addIssue({ code: 'custom', message: `expected a comma-separated list of tcp/PORT, udp/PORT (a range FIRST-LAST allowed), icmp or all, got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return rules;
    }),
  AGENT_SITE_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'the dev domain project sites live under, e.g. dev.school.nl')
    .default('dev.devplein.test'),
  AGENT_SCREENSHOT_PROXY: hostPort.default('127.0.0.1:80'),
  AGENT_SCREENSHOT_PAGES: z.coerce.number().int().min(1).max(16).default(4),
  AGENT_SCREENSHOT_TIMEOUT_MS: milliseconds(15_000),
  AGENT_SCREENSHOT_RECYCLE_AFTER: z.coerce.number().int().min(1).default(200),
  AGENT_SCREENSHOT_CAPTURES_PER_TAB: z.coerce.number().int().min(1).default(25),
  AGENT_BROWSER_SERVER: z
    .string()
    .trim()
    .regex(/^127\.0\.0\.1:\d{1,5}$/, 'the browser server listens on loopback: 127.0.0.1:PORT')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  AGENT_BROWSER_SECRET_FILE: z.string().trim().default(''),
  AGENT_BROWSER_USER: z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'a user name').default('devplein-browser'),
  AGENT_BROWSER_FIREWALL: z.enum(['iptables', 'off']).default('iptables'),
  AGENT_DATA_DIR: z.string().trim().min(1).default('/var/lib/devplein-agent'),
  AGENT_DOCKER_NETWORK: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'a Docker network name').default('devplein'),
  AGENT_CONTAINER_MEMORY_MB: z.coerce.number().int().min(16).default(512),
  AGENT_CONTAINER_CPUS: z.coerce.number().positive().max(64).default(1),
  AGENT_CONTAINER_PIDS: z.coerce.number().int().min(16).default(256),
  /** The web server's user in WordPress images: wp-cli runs as it, never as root (official images: www-data). */
  AGENT_WORDPRESS_USER: z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$|^[1-9]\d{0,9}$/, 'a user name or a non-zero uid').default('www-data'),
  AGENT_WORDPRESS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(30),
  AGENT_CONTAINER_FIREWALL: z.enum(['iptables', 'off']).default('iptables'),
  AGENT_CONTAINER_HOST_PORTS: z
    .string()
    .default('3306')
    .transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean))
    .refine((ports) => ports.every((port) => /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535), 'a comma-separated list of TCP ports (1-65535), e.g. 3306; empty for none')
    .transform((ports) => [...new Set(ports.map(Number))]),
  AGENT_CONTAINER_DISK_LIMIT: z
    .string()
    .default('')
    .transform((text, context) => {
      if (text.trim() === '' || text.trim() === '0') return undefined;
      const bytes = parseSize(text);
      if (bytes === undefined || bytes < MIN_DISK_LIMIT) {
        context.addIssue({ code: 'custom', message: `expected a size of at least 64M such as 2G or 512M (empty or 0 = no limit), got ${JSON.stringify(text)}` });
        return z.NEVER;
      }
      return bytes;
    }),
  AGENT_CONTAINER_MAX_MEMORY_MB: z.coerce.number().int().min(16).default(2048),
  AGENT_CONTAINER_MAX_CPUS: z.coerce.number().positive().max(64).default(2),
  AGENT_CONTAINER_MAX_PIDS: z.coerce.number().int().min(16).default(1024),
  AGENT_CONTAINER_HTTP_PORT: z.coerce.number().int().min(1).max(65_535).default(80),
  AGENT_PUBLISH_ADDRESS: z.ipv4().default('127.0.0.1'),
  AGENT_CADDY_SERVER: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'a Caddy server name').default('devplein'),
  AGENT_CADDY_LISTEN: z.string().min(1).default(':80'),
  AGENT_SSH_HOST: z.string().trim().min(1).default('localhost'),
  AGENT_SSH_BIND_ADDRESS: z.ipv4().default('0.0.0.0'),
  AGENT_SSH_PORT_RANGE: z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, 'expected FIRST-LAST, e.g. 2200-2999')
    .transform((value) => value.split('-').map(Number) as [number, number])
    .refine(([first, last]) => first >= 1 && last <= 65_535 && first <= last, 'FIRST must be ≤ LAST, both 1-65535')
    .default([2200, 2999]),
  AGENT_RECONCILE_CRON: z.string().min(9).default('*/1 * * * *'),
  AGENT_HALF_MADE_AFTER_S: z.coerce.number().int().min(1).default(120),
  AGENT_PROBE_TIMEOUT_MS: milliseconds(1_000),
  AGENT_STATS_INTERVAL_MS: milliseconds(5_000),
  AGENT_SHUTDOWN_TIMEOUT_MS: milliseconds(10_000),
  AGENT_METRICS_LISTEN: z.literal('').or(hostPort).default('127.0.0.1:9465'),
  AGENT_IDLE_STOP_AFTER: duration('7d'),
  AGENT_IDLE_CRON: z.string().min(9).default('*/5 * * * *'),
  AGENT_GIT_HOSTS: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(',').map((part) => part.trim().toLowerCase()).filter(Boolean))
    .refine(
      (hosts) => hosts.every((host) => /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[1-9][0-9]{0,4})?$/.test(host) && Number(host.split(':')[1] ?? '1') <= 65_535),
      'a comma-separated list of git host names or IPv4 addresses, each with a port only when it is not the standard one, e.g. git.school.nl,github.com,git.school.nl:2222',
    ),
  AGENT_DEPLOY_MAX_BYTES: z
    .string()
    .default('200M')
    .transform((text, context) => {
      const bytes = parseSize(text);
      if (bytes === undefined || bytes < 1024 * 1024) {
        context.addIssue({ code: 'custom', message: `expected a size of at least 1M such as 200M or 1G, got ${JSON.stringify(text)}` });
        return z.NEVER;
      }
      return bytes;
    }),
  AGENT_DEPLOY_TIMEOUT_MS: milliseconds(120_000),
  AGENT_DEPLOY_COMMAND_TIMEOUT_MS: milliseconds(300_000),
  AGENT_GIT_USER: z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'a user name').default('devplein-git'),
  AGENT_GIT_FIREWALL: z.enum(['iptables', 'off']).default('iptables'),
  AGENT_GIT_RUNNER: z
    .string()
    .trim()
    .regex(/^((http:\/\/)?127\.0\.0\.1:\d{1,5})?$/, 'the git runner listens on loopback: 127.0.0.1:PORT')
    .optional()
    .transform((value) => (!value ? undefined : value.startsWith('http://') ? value : `http://${value}`)),
  AGENT_GIT_RUNNER_SECRET_FILE: z.string().trim().default(''),
  AGENT_GIT_RUNNER_STATE_DIR: z.string().trim().min(1).default('/var/lib/devplein-git'),
  AGENT_ACCESS_LOG_LISTEN: z
    .literal('')
    .or(hostPort.refine((value) => /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):/.test(value), 'Caddy sends its access log in plain UDP: a loopback address only'))
    .default('127.0.0.1:9466'),
});

/** Rules across variables. Exported for `devplein config check` (cli/config-check.ts). */
export const checkedEnvironmentSchema = environmentSchema
  .refine((values) => values.AGENT_IDLE_STOP_AFTER === 0 || values.AGENT_ACCESS_LOG_LISTEN !== '', {
    path: ['AGENT_ACCESS_LOG_LISTEN'],
    message: 'idle auto-stop (AGENT_IDLE_STOP_AFTER) needs the access log listener; set both, or AGENT_IDLE_STOP_AFTER=0',
  })
  // The defaults must lie inside the bounds, or every create without limits would be refused.
  .refine((values) => values.AGENT_CONTAINER_MEMORY_MB <= values.AGENT_CONTAINER_MAX_MEMORY_MB, {
    path: ['AGENT_CONTAINER_MAX_MEMORY_MB'],
    message: 'must be at least AGENT_CONTAINER_MEMORY_MB (the default a container gets)',
  })
  .refine((values) => values.AGENT_CONTAINER_CPUS <= values.AGENT_CONTAINER_MAX_CPUS, {
    path: ['AGENT_CONTAINER_MAX_CPUS'],
    message: 'must be at least AGENT_CONTAINER_CPUS (the default a container gets)',
  })
  .refine((values) => values.AGENT_CONTAINER_PIDS <= values.AGENT_CONTAINER_MAX_PIDS, {
    path: ['AGENT_CONTAINER_MAX_PIDS'],
    message: 'must be at least AGENT_CONTAINER_PIDS (the default a container gets)',
  })
  .refine((values) => values.AGENT_GIT_RUNNER === undefined || values.AGENT_GIT_RUNNER_SECRET_FILE !== '', {
    path: ['AGENT_GIT_RUNNER_SECRET_FILE'],
    message: 'AGENT_GIT_RUNNER needs the file with the git runner’s secret',
  })
  .refine((values) => values.AGENT_BROWSER_SERVER === undefined || values.AGENT_BROWSER_SECRET_FILE !== '', {
    path: ['AGENT_BROWSER_SECRET_FILE'],
    message: 'AGENT_BROWSER_SERVER needs the file with the browser server’s secret',
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
  /** Host part of the students' MySQL accounts (`'u12_abc'@'{this}'`). */
  mysqlUserHost: string;
  /** MAX_USER_CONNECTIONS of every student account: one student cannot take the server's connections. */
  mysqlMaxUserConnections: number;
  /**
   * The dev domain project sites live under (AGENT_SITE_DOMAIN): the agent routes and captures
   * only domains under it.
   */
  siteDomain: string;
  chromiumPath: string;
  /** `wg` command: an absolute path or a name looked up on PATH. */
  wgBinary: string;
  /** Site thumbnails with the host's Chromium. */
  screenshots: {
    /** Only `http://{project}.{siteDomain}/` may be captured. */
    siteDomain: string;
    /** host:port of the reverse proxy's HTTP listener; every request of the browser goes there. */
    proxy: string;
    /** Pages captured in parallel. */
    pages: number;
    /** Default time limit of one capture. */
    timeoutMs: number;
    /** The browser is restarted after this many captures (memory stays bounded). */
    recycleAfter: number;
    /** A pool tab is replaced by a new one after this many captures (1 = a new tab every time). */
    capturesPerTab: number;
  };
  /** Git deploys (issue 23: DeployService; services/deploy-service.ts). */
  deploy: {
    /** AGENT_GIT_HOSTS: the git hosts this agent clones from, besides the control plane's list; empty: the control plane's list alone. */
    gitHosts: string[];
    /** Size limit of a checkout (with its .git) and of the tree copied into a container. */
    maxBytes: number;
    /** Time limit of one clone or fetch. */
    fetchTimeoutMs: number;
    /** Time limit of the build and the after-update command, each. */
    commandTimeoutMs: number;
    /** The unprivileged user git and ssh run as when the agent is root. */
    gitUser: string;
    /** `iptables`: that user's outgoing traffic reaches only the git host being fetched (drivers/git/git-firewall.ts). */
    firewall: 'iptables' | 'off';
    /**
     * The git runner of the git user's own unit (drivers/git/git-runner-server.ts):
     * http://127.0.0.1:PORT, its secret's file and its state folder (the checkouts the agent
     * reads). Unset: git runs from the agent (as gitUser when the agent is root).
     */
    runner: { url: string; secretFile: string; stateDir: string } | undefined;
  };
  /** Where the screenshot browser runs (drivers/browser/screenshot-browser.ts). */
  browser: {
    /** 127.0.0.1:PORT of the browser server's unit; unset: the agent starts one itself when root. */
    server: string | undefined;
    /** File with the secret shared with the browser server (AGENT_BROWSER_SERVER only). */
    secretFile: string;
    /** The unprivileged user Chromium runs as. */
    user: string;
    /** `iptables`: the owner-match rules that keep that user's traffic to the proxy. */
    firewall: 'iptables' | 'off';
  };
  /** The students' WireGuard server (see deploy/ for how to run it). */
  vpn: {
    /** `wireguard-go` command, used when the kernel has no WireGuard module. */
    wireguardGoBinary: string;
    iptablesBinary: string;
    interfaceName: string;
    listenPort: number;
    /** `host:port` clients dial; unset: `localhost:{listenPort}` (fine for tests only). */
    endpoint: string | undefined;
    /** IPv4 CIDR the server (first host) and the peers take their addresses from. */
    addressPool: string;
    /** What peers may reach (their AllowedIPs); empty: the server's own tunnel address /32. */
    allowedNetworks: string[];
    dnsServers: string[];
    /** `iptables`: the agent keeps peers inside allowedNetworks on the server side too. */
    firewall: 'iptables' | 'off';
    /** What the firewall admits to the allowed networks (default TCP 3306, the database, only). */
    firewallAllow: FirewallAllow[];
  };
  probeTimeoutMs: number;
  /** Time between two samples of a watched container's stats (WatchContainerStats). */
  statsIntervalMs: number;
  shutdownTimeoutMs: number;
  /**
   * host:port of the HTTP listener for GET /healthz and GET /metrics (Prometheus); loopback or a
   * monitoring network only. Undefined when AGENT_METRICS_LISTEN is empty (off).
   */
  metricsListen: string | undefined;
  /** The agent's own files (WireGuard state; the keys folders of legacy containers, legacy-keys-folder.ts). */
  dataDir: string;
  /** How the WordPress password reset runs wp-cli inside a student's container. */
  wordpress: {
    /** User (name or uid) wp runs as: the web server's, so a student's code never runs as root through it. */
    user: string;
    /** Time limit of one wp call. */
    timeoutMs: number;
  };
  containers: {
    /** User-defined bridge network every project container joins. */
    network: string;
    memoryBytes: number;
    nanoCpus: number;
    pids: number;
    /** The most a create may ask for (a larger limit is refused, not cut). */
    maxMemoryBytes: number;
    maxNanoCpus: number;
    maxPids: number;
    /** Port the project's web server listens on inside the container. */
    httpPort: number;
    /** Host address the container's HTTP port is published on (Caddy dials it). */
    publishAddress: string;
    /**
     * `iptables`: the agent keeps containers away from the host's services and from each other
     * (container-firewall.ts); `off`: it removes its rules (nothing isolates containers from the host then).
     */
    firewall: 'iptables' | 'off';
    /** TCP ports on the host containers may reach (MariaDB's 3306 by default). */
    allowedHostPorts: number[];
    /** Size limit of each container's writable layer in bytes (Docker's storage-opt size); undefined: none. */
    diskLimitBytes: number | undefined;
  };
  caddy: {
    /** Name of the Caddy HTTP server whose routes the agent manages. */
    server: string;
    /** Listen address used when the agent has to create that server. */
    listen: string;
  };
  ssh: {
    /** Host name students type after `ssh student@`. */
    host: string;
    bindAddress: string;
    portRange: { first: number; last: number };
  };
  /** cron expression of the reconcile job (routes ↔ running containers). */
  reconcileCron: string;
  /**
   * A managed container still in Docker's `created` state this long after its creation was
   * half made (the agent died between create and start); the reconcile job removes it.
   */
  halfMadeAfterMs: number;
  /**
   * Idle auto-stop: running managed containers whose domain got no request through the proxy
   * (and that did not start) for `afterMs` are stopped, never removed. Undefined when off
   * (AGENT_IDLE_STOP_AFTER=0).
   */
  idleStop: {
    afterMs: number;
    /** cron expression of the check. */
    cron: string;
    /** Loopback host:port of the UDP listener Caddy sends the managed server's access log to. */
    accessLogListen: string;
  } | undefined;
}

/** Thrown by loadConfig; its message lists every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the agent's configuration from environment variables (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  const parsed = checkedEnvironmentSchema.safeParse(env);
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
    mysqlUserHost: values.AGENT_MYSQL_USER_HOST,
    mysqlMaxUserConnections: values.AGENT_MYSQL_MAX_USER_CONNECTIONS,
    siteDomain: values.AGENT_SITE_DOMAIN,
    chromiumPath: values.AGENT_CHROMIUM_PATH,
    wgBinary: values.AGENT_WG_BINARY,
    screenshots: {
      siteDomain: values.AGENT_SITE_DOMAIN,
      proxy: values.AGENT_SCREENSHOT_PROXY,
      pages: values.AGENT_SCREENSHOT_PAGES,
      timeoutMs: values.AGENT_SCREENSHOT_TIMEOUT_MS,
      recycleAfter: values.AGENT_SCREENSHOT_RECYCLE_AFTER,
      capturesPerTab: values.AGENT_SCREENSHOT_CAPTURES_PER_TAB,
    },
    deploy: {
      gitHosts: values.AGENT_GIT_HOSTS,
      maxBytes: values.AGENT_DEPLOY_MAX_BYTES,
      fetchTimeoutMs: values.AGENT_DEPLOY_TIMEOUT_MS,
      commandTimeoutMs: values.AGENT_DEPLOY_COMMAND_TIMEOUT_MS,
      gitUser: values.AGENT_GIT_USER,
      firewall: values.AGENT_GIT_FIREWALL,
      runner: values.AGENT_GIT_RUNNER
        ? { url: values.AGENT_GIT_RUNNER, secretFile: values.AGENT_GIT_RUNNER_SECRET_FILE, stateDir: values.AGENT_GIT_RUNNER_STATE_DIR }
        : undefined,
    },
    browser: {
      server: values.AGENT_BROWSER_SERVER,
      secretFile: values.AGENT_BROWSER_SECRET_FILE,
      user: values.AGENT_BROWSER_USER,
      firewall: values.AGENT_BROWSER_FIREWALL,
    },
    vpn: {
      wireguardGoBinary: values.AGENT_WG_GO_BINARY,
      iptablesBinary: values.AGENT_IPTABLES_BINARY,
      interfaceName: values.AGENT_WG_INTERFACE,
      listenPort: values.AGENT_WG_LISTEN_PORT,
      endpoint: values.AGENT_WG_ENDPOINT,
      addressPool: values.AGENT_WG_ADDRESS_POOL,
      allowedNetworks: values.AGENT_WG_ALLOWED_NETWORKS,
      dnsServers: values.AGENT_WG_DNS,
      firewall: values.AGENT_WG_FIREWALL,
      firewallAllow: values.AGENT_WG_FIREWALL_ALLOW,
    },
    probeTimeoutMs: values.AGENT_PROBE_TIMEOUT_MS,
    statsIntervalMs: values.AGENT_STATS_INTERVAL_MS,
    shutdownTimeoutMs: values.AGENT_SHUTDOWN_TIMEOUT_MS,
    metricsListen: values.AGENT_METRICS_LISTEN || undefined,
    dataDir: values.AGENT_DATA_DIR,
    containers: {
      network: values.AGENT_DOCKER_NETWORK,
      memoryBytes: values.AGENT_CONTAINER_MEMORY_MB * 1024 * 1024,
      nanoCpus: Math.round(values.AGENT_CONTAINER_CPUS * 1e9),
      pids: values.AGENT_CONTAINER_PIDS,
      maxMemoryBytes: values.AGENT_CONTAINER_MAX_MEMORY_MB * 1024 * 1024,
      maxNanoCpus: Math.round(values.AGENT_CONTAINER_MAX_CPUS * 1e9),
      maxPids: values.AGENT_CONTAINER_MAX_PIDS,
      httpPort: values.AGENT_CONTAINER_HTTP_PORT,
      publishAddress: values.AGENT_PUBLISH_ADDRESS,
      firewall: values.AGENT_CONTAINER_FIREWALL,
      allowedHostPorts: values.AGENT_CONTAINER_HOST_PORTS,
      diskLimitBytes: values.AGENT_CONTAINER_DISK_LIMIT,
    },
    wordpress: { user: values.AGENT_WORDPRESS_USER, timeoutMs: values.AGENT_WORDPRESS_TIMEOUT_SECONDS * 1000 },
    caddy: { server: values.AGENT_CADDY_SERVER, listen: values.AGENT_CADDY_LISTEN },
    ssh: {
      host: values.AGENT_SSH_HOST,
      bindAddress: values.AGENT_SSH_BIND_ADDRESS,
      portRange: { first: values.AGENT_SSH_PORT_RANGE[0], last: values.AGENT_SSH_PORT_RANGE[1] },
    },
    reconcileCron: values.AGENT_RECONCILE_CRON,
    halfMadeAfterMs: values.AGENT_HALF_MADE_AFTER_S * 1000,
    idleStop:
      values.AGENT_IDLE_STOP_AFTER > 0
        ? { afterMs: values.AGENT_IDLE_STOP_AFTER, cron: values.AGENT_IDLE_CRON, accessLogListen: values.AGENT_ACCESS_LOG_LISTEN }
        : undefined,
  };
}
