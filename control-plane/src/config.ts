import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isCronExpression } from '@devplein/server-kit/scheduled-job';
import { deriveDevelopmentKey } from './crypto/secret-box.ts';
import { GroupMappingError, loadGroupMapping, type GroupMapping } from './auth/group-mapping.ts';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** Where the databases page links to for database administration unless DB_ADMIN_URL says otherwise. */
export const DEFAULT_DB_ADMIN_URL = '/phpmyadmin/';
/** The dev server's address inside the VPN (the WireGuard server has .1 of the pool) unless STUDENT_DB_HOST says otherwise. */
export const DEFAULT_STUDENT_DB_HOST = '10.8.0.1';
/** The students' MariaDB port (spec §2 Databases, §9: 3306) unless STUDENT_DB_PORT says otherwise. */
export const DEFAULT_STUDENT_DB_PORT = 3306;

/** phpMyAdmin shows student-controlled content: never on the control plane's origin (docs/operations.md). */
const SAME_ORIGIN_MESSAGE = "phpMyAdmin must be on an origin of its own (its own host name, or port), not APP_URL's";

/** The origin of `url` (resolved against `base` when relative), or undefined for no URL. */
export function originOf(url: string, base?: string): string | undefined {
  try {
    return new URL(url, base).origin;
  } catch {
    return undefined;
  }
}

/**
 * The phpMyAdmin settings that still put it on the control plane's origin, where any XSS in
 * student-controlled table content would run with the visitor's devplein session: the sign-on
 * page always, the link (DB_ADMIN_URL, a dev server's dbAdminUrl) in production. Warned at start
 * (main.ts), not refused: an install from before phpMyAdmin had a host name of its own keeps its
 * env file and Caddyfile on upgrade, and the school must not lose the whole control plane over
 * it (docs/operations.md, "phpMyAdmin on its own origin").
 */
export function dbAdminOnAppOrigin(config: Pick<Config, 'appUrl' | 'NODE_ENV' | 'DB_ADMIN_URL' | 'DB_ADMIN_SIGNON_URL' | 'agentLinks'>): string[] {
  const appOrigin = originOf(config.appUrl);
  if (appOrigin === undefined) return [];
  const settings: string[] = [];
  if (config.DB_ADMIN_SIGNON_URL && originOf(config.DB_ADMIN_SIGNON_URL, appOrigin) === appOrigin) settings.push(`DB_ADMIN_SIGNON_URL (${config.DB_ADMIN_SIGNON_URL})`);
  if (config.NODE_ENV === 'production') {
    if (originOf(config.DB_ADMIN_URL, appOrigin) === appOrigin) settings.push(`DB_ADMIN_URL (${config.DB_ADMIN_URL})`);
    // A link without a dbAdminUrl of its own carries DB_ADMIN_URL's, named once above.
    for (const link of config.agentLinks.filter((candidate) => candidate.dbAdminUrl !== config.DB_ADMIN_URL)) {
      if (originOf(link.dbAdminUrl, appOrigin) === appOrigin) settings.push(`AGENT_LINKS_FILE [${link.name}].dbAdminUrl (${link.dbAdminUrl})`);
    }
  }
  return settings.map((setting) => `${setting}: ${SAME_ORIGIN_MESSAGE} (${appOrigin})`);
}

/** soketi's development secret (npm start gives its soketi the same); refused in production. */
const REALTIME_SECRET_DEFAULT = 'devplein-secret';

/** host:port with a name, an IPv4 address or a bracketed IPv6 address. */
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;
const hostPort = z.string().regex(HOST_PORT, 'expected host:port, e.g. dev1.school.nl:7443');
const agentName = z.string().regex(/^[a-z][a-z0-9-]{0,30}$/, 'use lowercase letters, digits and hyphens (at most 31), e.g. dev2');
const siteDomain = z
  .string()
  .regex(/^(?=.{1,200}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, 'use a lowercase domain name such as dev.school.nl');

/** One dev server in AGENT_LINKS_FILE. */
const agentLinkEntry = z
  .object({
    name: agentName,
    /** host:port of its agent; the host must be in the agent certificate's SAN (or give serverName). */
    address: hostPort,
    /** The name to check the agent's certificate against when the address uses another (an IP, a tunnel). */
    serverName: z.string().min(1).optional(),
    /** The domain its reverse proxy serves: projects with a domain under it live on this server. */
    siteDomain,
    /** Its MariaDB address inside its VPN (the WireGuard server's address), shown on the databases page. */
    studentDbHost: z.string().min(1).optional(),
    /** Its MariaDB port as students reach it, when not the control plane's STUDENT_DB_PORT. */
    studentDbPort: z.number().int().min(1).max(65535).optional(),
    /** Its database administration (phpMyAdmin), when not the control plane's DB_ADMIN_URL. */
    dbAdminUrl: z.string().min(1).optional(),
  })
  .strict();

const agentLinksFile = z
  .array(agentLinkEntry)
  .min(1, 'list at least one dev server')
  .superRefine((links, ctx) => {
    const seen = new Map<string, number>();
    links.forEach((link, index) => {
      for (const [key, value] of [['name', link.name], ['siteDomain', link.siteDomain]] as const) {
        const id = `${key}:${value}`;
        if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [index, key], message: `${value} is already used by entry ${seen.get(id)}` });
        else seen.set(id, index);
      }
    });
  });

/**
 * INITIAL_ADMIN_EMAILS: comma-separated e-mail addresses, compared lowercased. Spaces around the
 * commas and empty entries (a trailing comma) are allowed; a malformed address is named.
 */
export const initialAdminEmails = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim().toLowerCase()).filter((part) => part.length > 0))
  .pipe(z.array(z.email({ error: (issue) => `not an e-mail address: ${String(issue.input)}` })))
  .transform((emails) => [...new Set(emails)]);

/**
 * GIT_ALLOWED_HOSTS (issue 23): comma-separated git host names or IPv4 addresses the school
 * allows repositories from, compared lowercased. Empty: git deploy is off. An entry may name the
 * one port it allows (`git.school.nl:2222`, issue 35); without one, only the transport's standard
 * port (https 443, ssh 22, http 80, git 9418) is allowed.
 */
export const gitAllowedHosts = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim().toLowerCase()).filter((part) => part.length > 0))
  .pipe(
    z.array(
      z
        .string()
        .regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[1-9][0-9]{0,4})?$/, 'list git host names such as git.school.nl,github.com (a port only when it is not the standard one: git.school.nl:2222)')
        .refine((entry) => Number(entry.split(':')[1] ?? '1') <= 65_535, 'a port is 1-65535'),
    ),
  )
  .transform((hosts) => [...new Set(hosts)]);

/** Every setting of the control plane, parsed once from the environment at start-up. */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default('127.0.0.1'),
    APP_URL: z.url().optional(),
    DATABASE_URL: z.string().min(1).optional(),
    DATA_DIR: z.string().default('./data'),
    SESSION_SECRET: z.string().min(32).optional(),
    /** 32 bytes, base64: encrypts stored secrets (database and git passwords). Required in production. */
    ENCRYPTION_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)')
      .optional(),
    /** Absolute lifetime of a signed-in session, counted from sign-in. */
    SESSION_MAX_AGE_HOURS: z.coerce.number().positive().default(12),
    /** A signed-in session unused this long ends (shared lab PCs); fractions allowed (tests). */
    SESSION_IDLE_TIMEOUT_MINUTES: z.coerce.number().positive().default(60),
    TRUST_PROXY: booleanFromEnv.default(false),
    /** The built-in development sign-in (demo accounts, no passwords): loopback only, never in production. */
    DEV_LOGIN: booleanFromEnv.default(false),
    /** Tests only: false makes the development provider publish no end_session_endpoint (the prompt=login fallback). */
    DEV_LOGIN_END_SESSION: booleanFromEnv.default(true),
    OIDC_ISSUER: z.url().optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    /**
     * People who become activated admins at their first school sign-in, when the provider says
     * their address is verified (the first admin without SQL; docs/operations.md). Only when the
     * account is created then: an admin demoted later stays demoted.
     */
    INITIAL_ADMIN_EMAILS: initialAdminEmails.default([]),
    /**
     * The id_token (or userinfo) claim with the user's groups at the school's provider, e.g.
     * groups; a dotted path reaches a nested claim (realm_access.roles). Unset: no group sync.
     */
    OIDC_GROUPS_CLAIM: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_:/.-]{1,200}$/, 'use a claim name such as groups, or a dotted path such as realm_access.roles')
      .optional(),
    /** The JSON file that maps values of OIDC_GROUPS_CLAIM to cohort, teams, admin and developer (docs/operations.md). */
    OIDC_GROUPS_MAPPING_FILE: z.string().optional(),
    OIDC_PROVIDER_NAME: z
      .string()
      .regex(/^[a-z][a-z0-9-]{1,30}$/, 'use lowercase letters, digits and hyphens')
      .default('school'),
    AGENT_ADDRESS: hostPort.default('localhost:7443'),
    /** The name of the one dev server of AGENT_ADDRESS (in the admin pages, logs and metrics). */
    AGENT_NAME: agentName.default('dev1'),
    /** A JSON file listing every dev server's agent (docs/operations.md); replaces AGENT_ADDRESS/AGENT_NAME. */
    AGENT_LINKS_FILE: z.string().optional(),
    AGENT_TLS_CA: z.string().optional(),
    AGENT_TLS_CERT: z.string().optional(),
    AGENT_TLS_KEY: z.string().optional(),
    /**
     * The link CA's private key (install.sh: /etc/devplein/ca/ca-key.pem, readable by the
     * devplein group): with it the control plane signs the certificate of a dev server that joins
     * (`install.sh agent --join`). Unset: joining is off (outside production DATA_DIR/certs/ca-key.pem).
     */
    AGENT_CA_KEY_FILE: z.string().optional(),
    AGENT_DEADLINE_MS: z.coerce.number().int().positive().default(5000),
    REALTIME_APP_ID: z.string().default('devplein-app'),
    REALTIME_KEY: z.string().default('devplein-key'),
    REALTIME_SECRET: z.string().default(REALTIME_SECRET_DEFAULT),
    REALTIME_HOST: z.string().default('127.0.0.1'),
    REALTIME_PORT: z.coerce.number().int().min(1).max(65535).default(6001),
    REALTIME_TLS: booleanFromEnv.default(false),
    REALTIME_PUBLIC_HOST: z.string().optional(),
    REALTIME_PUBLIC_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    REALTIME_PUBLIC_TLS: booleanFromEnv.optional(),
    /** Domain under which project and introducee sites live: `{name}.{SITE_DOMAIN}`. */
    SITE_DOMAIN: siteDomain.default('dev.devplein.test'),
    /** Database administration (phpMyAdmin) of the dev server; the databases page links `{DB_ADMIN_URL}?db={name}&link=true`. */
    DB_ADMIN_URL: z.string().min(1).default(DEFAULT_DB_ADMIN_URL),
    /** The dev server's internal (VPN) address where MariaDB listens on port 3306; shown on the databases page. */
    STUDENT_DB_HOST: z.string().min(1).default(DEFAULT_STUDENT_DB_HOST),
    /**
     * The port students connect to on STUDENT_DB_HOST: 3306 on a dev server (the spec's); `npm start`
     * sets the port of its own MariaDB, so the databases page says what really answers.
     */
    STUDENT_DB_PORT: z.coerce.number().int().min(1).max(65535).default(DEFAULT_STUDENT_DB_PORT),
    /** phpMyAdmin's signon script (deploy/phpmyadmin/devplein-signon.php); unset: the admin link goes straight to DB_ADMIN_URL. */
    DB_ADMIN_SIGNON_URL: z.url({ protocol: /^https?$/, error: 'DB_ADMIN_SIGNON_URL must be an http(s):// URL' }).optional().or(z.literal('').transform(() => undefined)),
    /** Shared with that script (its DEVPLEIN_SIGNON_SECRET); at least 32 characters. */
    DB_ADMIN_SIGNON_SECRET: z.string().min(32, 'use at least 32 random characters').optional().or(z.literal('').transform(() => undefined)),
    /** Most projects a student may have requested (and still be a member of) when requesting a new one (admins have no quota). */
    PROJECT_QUOTA: z.coerce.number().int().min(0).default(5),
    /** Live log streams (GET /api/user/container/{name}/follow) one user may have open at once; the next answers 429. */
    LOG_FOLLOW_PER_USER: z.coerce.number().int().min(1).max(100).default(3),
    /**
     * cron expression of the check that containers of projects that are not approved (rejected,
     * or back to awaiting approval) do not run; it catches up when a dev server did not answer at the decision.
     */
    UNAPPROVED_RECONCILE_CRON: z
      .string()
      .default('* * * * *')
      .refine((value) => isCronExpression(value), 'use a cron expression such as "* * * * *"'),
    // --- Site thumbnails (screenshots by the agent's Chromium) ---
    /** cron expression of the nightly capture of every visible site; 'off' disables it. */
    THUMBNAIL_CRON: z
      .string()
      .default('0 3 * * *')
      .refine((value) => value === 'off' || isCronExpression(value), 'use a cron expression such as "0 3 * * *", or off'),
    /**
     * cron expression of the retry of access changes a dev server did not make yet (a
     * disabled student's VPN peer, locked databases, SSH keys and sessions); 'off' disables it.
     */
    HOST_ACCESS_RETRY_CRON: z
      .string()
      .default('* * * * *')
      .refine((value) => value === 'off' || isCronExpression(value), 'use a cron expression such as "* * * * *", or off'),
    /**
     * cron expression of the teachers' overview sampler: every dev server's HostStats stored as
     * one row a minute (7 days kept) and the idle auto-stops the agents report; 'off' disables it.
     */
    HOST_SAMPLE_CRON: z
      .string()
      .default('* * * * *')
      .refine((value) => value === 'off' || isCronExpression(value), 'use a cron expression such as "* * * * *", or off'),
    /** Seconds after a container starts before its site is captured (the site needs a moment to boot). */
    THUMBNAIL_AFTER_START_S: z.coerce.number().min(0).max(3600).default(20),
    /** Captures the control plane asks for at the same time (the agent has its own page pool). */
    THUMBNAIL_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
    /** Time the agent allows a page to load, per capture. */
    THUMBNAIL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(15_000),
    WEB_DIST: z.string().default('web/dist'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // --- Rate limits (one in-memory store: one control-plane process); 0 turns a limit off ---
    /** Sign-in starts (/auth/{provider}) per client address per minute; a class behind one NAT shares an address. */
    RATE_LIMIT_SIGNIN_PER_MINUTE: z.coerce.number().int().min(0).default(120),
    /** Unsafe API requests (POST/PUT/PATCH/DELETE) per signed-in user per minute. */
    RATE_LIMIT_WRITES_PER_MINUTE: z.coerce.number().int().min(0).default(600),
    /** Deploy webhook calls (POST /api/hooks/deploy/{projectId}) per project per minute. */
    RATE_LIMIT_DEPLOY_HOOKS_PER_MINUTE: z.coerce.number().int().min(0).default(6),
    // --- Git deploy (issue 23) ---
    /** Git hosts repositories may come from (comma list, e.g. git.school.nl,github.com); empty: git deploy off. */
    GIT_ALLOWED_HOSTS: gitAllowedHosts.default([]),
    /** Whether plain http:// repository addresses are accepted (off: https, ssh and git:// only). */
    GIT_ALLOW_HTTP: booleanFromEnv.default(false),
    /**
     * host:port of the separate metrics listener (GET /metrics in Prometheus format, GET /healthz);
     * never the public app port. An empty value (METRICS_LISTEN=) turns it off.
     */
    METRICS_LISTEN: z
      .string()
      .trim()
      .regex(HOST_PORT, 'expected host:port, e.g. 127.0.0.1:9464 (empty: off)')
      .default('127.0.0.1:9464'),
  })
  .superRefine((env, ctx) => {
    if (env.DEV_LOGIN) {
      if (env.NODE_ENV === 'production') {
        ctx.addIssue({ code: 'custom', path: ['DEV_LOGIN'], message: 'the development sign-in never runs in production: unset DEV_LOGIN and set OIDC_ISSUER' });
      }
      if (env.OIDC_ISSUER) {
        ctx.addIssue({ code: 'custom', path: ['DEV_LOGIN'], message: 'DEV_LOGIN=1 and OIDC_ISSUER exclude each other: unset one of them' });
      }
      // It signs anyone in as any account without a password: only where nobody else can reach it.
      if (env.APP_URL && !isLoopbackUrl(env.APP_URL)) {
        ctx.addIssue({
          code: 'custom',
          path: ['DEV_LOGIN'],
          message: `the development sign-in runs only on a loopback APP_URL (localhost, 127.0.0.1, [::1]), not ${env.APP_URL}: unset DEV_LOGIN and set OIDC_ISSUER, or use a loopback APP_URL`,
        });
      }
      if (!isLoopbackHost(env.HOST)) {
        ctx.addIssue({ code: 'custom', path: ['DEV_LOGIN'], message: `the development sign-in runs only when HOST is a loopback address (127.0.0.1, localhost, ::1), not ${env.HOST}` });
      }
    } else if (!env.OIDC_ISSUER) {
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_ISSUER'],
        message:
          "no sign-in configured: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (the school's provider), or DEV_LOGIN=1 for the built-in development sign-in on a loopback APP_URL (npm start sets it)",
      });
    }
    if (env.NODE_ENV === 'production') {
      if (!env.SESSION_SECRET) {
        ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'required in production' });
      }
      if (!env.ENCRYPTION_KEY) ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: 'required in production' });
      if (!env.APP_URL) ctx.addIssue({ code: 'custom', path: ['APP_URL'], message: 'required in production' });
    }
    if (env.DB_ADMIN_SIGNON_URL && !env.DB_ADMIN_SIGNON_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['DB_ADMIN_SIGNON_SECRET'], message: 'required with DB_ADMIN_SIGNON_URL (the signon script proves itself with it)' });
    }
    if (env.OIDC_GROUPS_CLAIM && !env.OIDC_GROUPS_MAPPING_FILE) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_GROUPS_MAPPING_FILE'], message: 'required with OIDC_GROUPS_CLAIM: the file that says what each group gives' });
    }
    if (env.OIDC_GROUPS_MAPPING_FILE && !env.OIDC_GROUPS_CLAIM) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_GROUPS_CLAIM'], message: 'required with OIDC_GROUPS_MAPPING_FILE: the claim that carries the groups, e.g. groups' });
    }
    if (env.OIDC_ISSUER && (!env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_CLIENT_ID'],
        message: 'OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required with OIDC_ISSUER',
      });
    }
  });

/** localhost, 127.0.0.0/8 or ::1: an address only this machine reaches. */
function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Values a secret must never have in production: the built-in defaults (REALTIME_SECRET's
 * devplein-secret, the development provider's client secret, the examples' "secret") and the
 * placeholders the env files ship with (deploy/: CHANGE_ME; deploy/oidc: <client-secret>).
 */
const DEFAULT_SECRETS: ReadonlySet<string> = new Set([REALTIME_SECRET_DEFAULT, 'devplein-dev-secret', 'secret']);
const PLACEHOLDER = /change[-_ ]?me|^<[^>]*>$|voorbeeld|example|placeholder/i;

const SECRET_HINTS: Record<string, string> = {
  REALTIME_SECRET: ' (openssl rand -hex 24; soketi gets the same)',
  SESSION_SECRET: ' (openssl rand -base64 48)',
  ENCRYPTION_KEY: ' (openssl rand -base64 32)',
  DB_ADMIN_SIGNON_SECRET: ' (openssl rand -hex 32; the signon script gets the same)',
  OIDC_CLIENT_SECRET: " (the client secret the school's identity provider issued)",
};

/** True for a default or placeholder value of a secret setting. */
export function isPlaceholderSecret(value: string): boolean {
  return DEFAULT_SECRETS.has(value.toLowerCase()) || PLACEHOLDER.test(value);
}

/** The settings production refuses as they are in `env` (raw, defaults applied for REALTIME_SECRET), each with the reason. */
export function placeholderSecrets(env: Record<string, string | undefined>): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const name of ['REALTIME_SECRET', 'SESSION_SECRET', 'ENCRYPTION_KEY', 'DB_ADMIN_SIGNON_SECRET', 'OIDC_CLIENT_SECRET']) {
    const value = name === 'REALTIME_SECRET' ? (env[name] ?? REALTIME_SECRET_DEFAULT) : env[name];
    if (value === undefined || !isPlaceholderSecret(value)) continue;
    found.push([name, DEFAULT_SECRETS.has(value.toLowerCase()) ? `is the default value ${value}` : 'is still a placeholder']);
  }
  // Not secrets, but a CHANGE_ME there means the env file was never filled in.
  for (const name of ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'DATABASE_URL']) {
    const value = env[name];
    if (value !== undefined && /change[-_ ]?me/i.test(value)) found.push([name, 'still contains a placeholder']);
  }
  return found;
}

export type RawConfig = z.infer<typeof configSchema>;

/** One dev server's agent link as the control plane uses it. */
export interface AgentLinkSettings {
  name: string;
  address: string;
  serverName?: string;
  siteDomain: string;
  studentDbHost: string;
  studentDbPort: number;
  dbAdminUrl: string;
}

/** The parsed settings plus values derived from them. */
export interface Config extends RawConfig {
  appUrl: string;
  /** APP_URL is https: cookies are Secure (and __Host- named), HSTS and upgrade-insecure-requests are sent. */
  appOnHttps: boolean;
  /** True when the built-in development identity provider serves sign-in (DEV_LOGIN). */
  useDevIdentityProvider: boolean;
  sessionSecret: string;
  /** Absolute lifetime of a signed-in session, from sign-in. */
  sessionMaxAgeMs: number;
  /** A signed-in session unused this long ends. */
  sessionIdleTimeoutMs: number;
  /** Key of the secret box (ENCRYPTION_KEY, or derived from the session secret outside production). */
  encryptionKey: Buffer;
  /** host:port of the metrics listener; null when METRICS_LISTEN is set empty (off). */
  metricsListen: string | null;
  /** Where browsers open the realtime websocket: the REALTIME_PUBLIC_* values, else REALTIME_HOST/PORT/TLS. */
  realtimePublic: { host: string; port: number; tls: boolean };
  /**
   * Every dev server's agent, in the order given: AGENT_LINKS_FILE, or the one of AGENT_ADDRESS.
   * The first is where rows from before a host was recorded live. New projects are requested
   * under SITE_DOMAIN, and new students' databases and VPN configurations go to the link of
   * SITE_DOMAIN as well.
   */
  agentLinks: AgentLinkSettings[];
  /** The group sync at sign-in (OIDC_GROUPS_CLAIM with its checked mapping file), or null when off. */
  groupSync: { claim: string; mapping: GroupMapping } | null;
}

export class ConfigError extends Error {}

/** The settings that count: an empty value (`DATABASE_URL=` in an env file) means "not set", as in most tools. */
export function givenSettings(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, fallbackSecret?: () => string): Config {
  const given = givenSettings(env);
  // Apart from the schema, so every placeholder is named at once, also when another value (a
  // CHANGE_ME too short for SESSION_SECRET, say) fails the schema and its refinements never run.
  const placeholders = given.NODE_ENV === 'production' ? placeholderSecrets(given) : [];
  const parsed = configSchema.safeParse(given);
  if (!parsed.success || placeholders.length > 0) {
    const named = new Set(placeholders.map(([name]) => name));
    const lines = [
      ...placeholders.map(([name, reason]) => `  ${name}: ${reason}: production needs a value of your own${SECRET_HINTS[name] ?? ''}`),
      ...(parsed.error?.issues ?? [])
        .filter((issue) => !named.has(String(issue.path[0])))
        .map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`),
    ];
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const agentLinks = readAgentLinks(raw);
  const groupSync = readGroupSync(raw);
  const appUrl = (raw.APP_URL ?? `http://localhost:${raw.PORT}`).replace(/\/$/, '');
  const sessionSecret = raw.SESSION_SECRET ?? fallbackSecret?.();
  if (!sessionSecret) throw new ConfigError('Invalid configuration:\n  SESSION_SECRET: required');
  return {
    ...raw,
    // With a links file and no SITE_DOMAIN, new projects go to the first dev server.
    SITE_DOMAIN: given.SITE_DOMAIN === undefined && raw.AGENT_LINKS_FILE ? (agentLinks[0] as AgentLinkSettings).siteDomain : raw.SITE_DOMAIN,
    agentLinks,
    groupSync,
    appUrl,
    appOnHttps: appUrl.startsWith('https://'),
    useDevIdentityProvider: raw.DEV_LOGIN,
    sessionSecret,
    sessionMaxAgeMs: raw.SESSION_MAX_AGE_HOURS * 3600_000,
    sessionIdleTimeoutMs: raw.SESSION_IDLE_TIMEOUT_MINUTES * 60_000,
    encryptionKey: raw.ENCRYPTION_KEY ? Buffer.from(raw.ENCRYPTION_KEY, 'base64') : deriveDevelopmentKey(sessionSecret),
    // Empty values are dropped before parsing (they mean "unset"), but for this key empty means off.
    metricsListen: env.METRICS_LISTEN !== undefined && env.METRICS_LISTEN.trim() === '' ? null : raw.METRICS_LISTEN,
    realtimePublic: {
      host: raw.REALTIME_PUBLIC_HOST ?? raw.REALTIME_HOST,
      port: raw.REALTIME_PUBLIC_PORT ?? raw.REALTIME_PORT,
      tls: raw.REALTIME_PUBLIC_TLS ?? raw.REALTIME_TLS,
    },
  };
}

/** OIDC_GROUPS_CLAIM with its mapping file, read and checked now: a bad file stops the start. */
function readGroupSync(raw: RawConfig): Config['groupSync'] {
  if (!raw.OIDC_GROUPS_CLAIM || !raw.OIDC_GROUPS_MAPPING_FILE) return null;
  const file = raw.OIDC_GROUPS_MAPPING_FILE;
  try {
    return { claim: raw.OIDC_GROUPS_CLAIM, mapping: loadGroupMapping(file) };
  } catch (error) {
    if (!(error instanceof GroupMappingError)) throw error;
    const lines = error.message.split('\n').map((line) => `  OIDC_GROUPS_MAPPING_FILE ${file}: ${line}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
}

/** The links of AGENT_LINKS_FILE (checked), or the single link of AGENT_ADDRESS. */
function readAgentLinks(raw: RawConfig): AgentLinkSettings[] {
  const defaults = { studentDbHost: raw.STUDENT_DB_HOST, studentDbPort: raw.STUDENT_DB_PORT, dbAdminUrl: raw.DB_ADMIN_URL };
  if (!raw.AGENT_LINKS_FILE) return [{ name: raw.AGENT_NAME, address: raw.AGENT_ADDRESS, siteDomain: raw.SITE_DOMAIN, ...defaults }];
  const file = raw.AGENT_LINKS_FILE;
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  AGENT_LINKS_FILE: ${file} could not be read as JSON (${(error as Error).message})`);
  }
  const parsed = agentLinksFile.safeParse(content);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  AGENT_LINKS_FILE ${file} [${issue.path.join('.')}]: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  // SITE_DOMAIN may name a dev server that joined (agent_links) rather than one of the file:
  // main.ts warns when no active link has it.
  const links = parsed.data.map((link) => ({ ...defaults, ...link }));
  return links;
}
