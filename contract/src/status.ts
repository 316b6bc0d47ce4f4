/** The admin status page's JSON (GET /api/admin/status) and the rules both ends use to judge it. */

/** A certificate that ends within this many days is a warning on the status page. */
export const CERTIFICATE_WARNING_DAYS = 30;
/** Less free than this share of a disk is a warning; less than DISK_BAD_SHARE is bad. */
export const DISK_WARNING_SHARE = 0.15;
export const DISK_BAD_SHARE = 0.05;

/** How a value is judged on the page: each level has its own colour and its own words. */
export type StatusLevel = 'ok' | 'warning' | 'bad';

/** One part of a dev server (Docker, Caddy, …): ok, or broken with the reason. */
export interface PartHealthJson {
  ok: boolean;
  detail: string;
}

/** The parts the agent checks, in the order the page shows them. */
export const STATUS_PARTS = ['docker', 'proxy', 'mysql', 'browser', 'wireguard'] as const;
export type StatusPart = (typeof STATUS_PARTS)[number];

/** Free space of one mount ('docker': the Docker data root; 'agent': the agent's data dir). */
export interface DiskJson {
  name: string;
  path: string;
  totalBytes: number;
  availableBytes: number;
  /** false: the path could not be measured (`error` says why; the sizes are 0). */
  ok: boolean;
  error: string;
  level: StatusLevel;
}

/** Containers by Docker's state word (running, exited, paused, …). */
export interface ContainerCountsJson {
  total: number;
  managed: number;
  byState: Record<string, number>;
  managedByState: Record<string, number>;
}

/** A certificate's end; `level` is warning within CERTIFICATE_WARNING_DAYS, bad once ended or unreadable. */
export interface CertificateJson {
  /** ISO time of notAfter; null when the certificate could not be read. */
  notAfter: string | null;
  /** Whole days left (negative once ended); null when unreadable. */
  daysLeft: number | null;
  level: StatusLevel;
  /** The subject, or why it could not be read. */
  detail: string;
}

/** The last `devplein backup` run (recorded by the backup command in PostgreSQL). */
export interface LastBackupJson {
  /** When it finished (ISO); null when its record could not be read (then ok is false). */
  at: string | null;
  sizeBytes: number;
  ok: boolean;
  message: string;
}

/** One dev server's row of the status page. */
export interface DevServerStatusJson {
  name: string;
  address: string;
  siteDomain: string;
  /** false: the agent did not answer (the page says 'onbereikbaar'); every fact below is then null or empty. */
  reachable: boolean;
  /** Why the row is incomplete: the agent's error, or that it is too old for the status call. */
  error: string | null;
  agentVersion: string | null;
  contractVersion: string | null;
  hostname: string | null;
  /** When the agent gathered the facts (ISO). */
  collectedAt: string | null;
  /** null when the agent did not say (unreachable, or older than contract 1.5.0). */
  parts: Record<StatusPart, PartHealthJson> | null;
  disks: DiskJson[];
  containers: ContainerCountsJson | null;
  /** The agent's own server certificate. */
  certificate: CertificateJson | null;
  cpu: { cores: number; load1m: number; load5m: number; load15m: number } | null;
  memory: { totalBytes: number; availableBytes: number } | null;
  /** null: no backup recorded yet (the page says 'Nog geen back-up gemaakt'). */
  lastBackup: LastBackupJson | null;
}

/** GET /api/admin/status */
export interface AdminStatusJson {
  checkedAt: string;
  servers: DevServerStatusJson[];
  /** The control plane's own side of the agent link: its client certificate and the link's CA. */
  controlPlane: {
    clientCertificate: CertificateJson | null;
    linkCa: CertificateJson | null;
    /** The control plane's own last `devplein backup` (backup_runs); null: none recorded yet. */
    lastBackup: LastBackupJson | null;
  };
  /** What no backup holds (@devplein/contract/backups), for the page to say so. */
  backupNotIncluded: readonly string[];
}

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
