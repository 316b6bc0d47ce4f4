/** The admin status page's JSON (GET /api/admin/status), the agents' (GET /api/admin/agent) and the rules both ends use to judge them. */
import { z } from 'zod';

/** A certificate that ends within this many days is a warning on the status page. */
export const CERTIFICATE_WARNING_DAYS = 30;
/** Less free than this share of a disk is a warning; less than DISK_BAD_SHARE is bad. */
export const DISK_WARNING_SHARE = 0.15;
export const DISK_BAD_SHARE = 0.05;

/** How a value is judged on the page: each level has its own colour and its own words. */
const statusLevel = z.enum(['ok', 'warning', 'bad']);
export type StatusLevel = z.infer<typeof statusLevel>;

/** One part of a dev server (Docker, Caddy, …): ok, or broken with the reason. */
export const partHealthJson = z.strictObject({
  ok: z.boolean(),
  detail: z.string(),
});
export type PartHealthJson = z.infer<typeof partHealthJson>;

/** The parts the agent checks, in the order the page shows them. */
export const STATUS_PARTS = ['docker', 'proxy', 'mysql', 'browser', 'wireguard'] as const;
export type StatusPart = (typeof STATUS_PARTS)[number];

/** Free space of one mount ('docker': the Docker data root; 'agent': the agent's data dir). */
export const diskJson = z.strictObject({
  name: z.string(),
  path: z.string(),
  totalBytes: z.number(),
  availableBytes: z.number(),
  /** false: the path could not be measured (`error` says why; the sizes are 0). */
  ok: z.boolean(),
  error: z.string(),
  level: statusLevel,
});
export type DiskJson = z.infer<typeof diskJson>;

/** Containers by Docker's state word (running, exited, paused, …). */
export const containerCountsJson = z.strictObject({
  total: z.number().int(),
  managed: z.number().int(),
  byState: z.record(z.string(), z.number().int()),
  managedByState: z.record(z.string(), z.number().int()),
});
export type ContainerCountsJson = z.infer<typeof containerCountsJson>;

/** A certificate's end; `level` is warning within CERTIFICATE_WARNING_DAYS, bad once ended or unreadable. */
export const certificateJson = z.strictObject({
  /** ISO time of notAfter; null when the certificate could not be read. */
  notAfter: z.iso.datetime({ offset: true }).nullable(),
  /** Whole days left (negative once ended); null when unreadable. */
  daysLeft: z.number().int().nullable(),
  level: statusLevel,
  /** The subject, or why it could not be read. */
  detail: z.string(),
});
export type CertificateJson = z.infer<typeof certificateJson>;

/** The last `devplein backup` run (recorded by the backup command in PostgreSQL). */
export const lastBackupJson = z.strictObject({
  /** When it finished (ISO); null when its record could not be read (then ok is false). */
  at: z.iso.datetime({ offset: true }).nullable(),
  sizeBytes: z.number(),
  ok: z.boolean(),
  message: z.string(),
});
export type LastBackupJson = z.infer<typeof lastBackupJson>;

/** One dev server's row of the status page. */
export const devServerStatusJson = z.strictObject({
  name: z.string(),
  address: z.string(),
  siteDomain: z.string(),
  /** false: the agent did not answer (the page says 'onbereikbaar'); every fact below is then null or empty. */
  reachable: z.boolean(),
  /** Why the row is incomplete: the agent's error, or that it is too old for the status call. */
  error: z.string().nullable(),
  agentVersion: z.string().nullable(),
  contractVersion: z.string().nullable(),
  hostname: z.string().nullable(),
  /** When the agent gathered the facts (ISO). */
  collectedAt: z.iso.datetime({ offset: true }).nullable(),
  /** null when the agent did not say (unreachable, or older than contract 1.5.0); the parts in STATUS_PARTS order. */
  parts: z
    .strictObject({ docker: partHealthJson, proxy: partHealthJson, mysql: partHealthJson, browser: partHealthJson, wireguard: partHealthJson })
    .nullable(),
  disks: z.array(diskJson),
  containers: containerCountsJson.nullable(),
  /** The agent's own server certificate. */
  certificate: certificateJson.nullable(),
  cpu: z.strictObject({ cores: z.number().int(), load1m: z.number(), load5m: z.number(), load15m: z.number() }).nullable(),
  memory: z.strictObject({ totalBytes: z.number(), availableBytes: z.number() }).nullable(),
  /** null: no backup recorded yet (the page says 'Nog geen back-up gemaakt'). */
  lastBackup: lastBackupJson.nullable(),
});
export type DevServerStatusJson = z.infer<typeof devServerStatusJson>;

/** GET /api/admin/status */
export const adminStatusJson = z.strictObject({
  checkedAt: z.iso.datetime({ offset: true }),
  servers: z.array(devServerStatusJson),
  /** The control plane's own side of the agent link: its client certificate and the link's CA. */
  controlPlane: z.strictObject({
    clientCertificate: certificateJson.nullable(),
    linkCa: certificateJson.nullable(),
    /** The control plane's own last `devplein backup` (backup_runs); null: none recorded yet. */
    lastBackup: lastBackupJson.nullable(),
  }),
  /** What no backup holds (@devplein/contract/backups), for the page to say so. */
  backupNotIncluded: z.array(z.string()).readonly(),
});
export type AdminStatusJson = z.infer<typeof adminStatusJson>;

/** One capability of an agent (GetInfo): there, or why not. */
export const agentCapabilityJson = z.strictObject({ available: z.boolean(), detail: z.string() });

/** An agent's Info (GetInfo) as JSON: its versions, host name and what it can do. */
export const agentInfoJson = z.strictObject({
  agentVersion: z.string(),
  contractVersion: z.string(),
  hostname: z.string(),
  capabilities: z.strictObject({
    docker: agentCapabilityJson,
    proxy: agentCapabilityJson,
    mysql: agentCapabilityJson,
    chromium: agentCapabilityJson,
    wireguard: agentCapabilityJson,
  }),
});
export type AgentInfoJson = z.infer<typeof agentInfoJson>;

const agentLinkState = z.enum(['unknown', 'reachable', 'unreachable']);

/** One dev server's agent on GET /api/admin/agent: its link state since when, its Info asked live (the last known one when it does not answer). */
export const agentHostJson = z.strictObject({
  name: z.string(),
  address: z.string(),
  siteDomain: z.string(),
  state: agentLinkState,
  since: z.iso.datetime({ offset: true }),
  info: agentInfoJson.nullable(),
  error: z.string().nullable(),
});
export type AgentHostJson = z.infer<typeof agentHostJson>;

/** GET /api/admin/agent: every dev server's agent, and at the top level the first one's (as before there could be more). */
export const adminAgentJson = z.strictObject({
  state: agentLinkState,
  since: z.iso.datetime({ offset: true }),
  info: agentInfoJson.nullable(),
  error: z.string().nullable(),
  hosts: z.array(agentHostJson),
});
export type AdminAgentJson = z.infer<typeof adminAgentJson>;

const DAY_MS = 86_400_000;

/** The certificate judgement: bad once ended, warning within CERTIFICATE_WARNING_DAYS. */
export function certificateStatus(notAfter: Date | null, now: Date, detail: string): CertificateJson {
  if (!notAfter || Number.isNaN(notAfter.getTime())) return { notAfter: null, daysLeft: null, level: 'bad', detail };
  const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
  const level: StatusLevel = notAfter.getTime() <= now.getTime() ? 'bad' : daysLeft <= CERTIFICATE_WARNING_DAYS ? 'warning' : 'ok';
  return { notAfter: notAfter.toISOString(), daysLeft, level, detail };
}

/** The disk judgement by the share that is still free. */
export function diskLevel(disk: { ok: boolean; totalBytes: number; availableBytes: number }): StatusLevel {
  if (!disk.ok || disk.totalBytes <= 0) return 'bad';
  const share = disk.availableBytes / disk.totalBytes;
  return share < DISK_BAD_SHARE ? 'bad' : share < DISK_WARNING_SHARE ? 'warning' : 'ok';
}
