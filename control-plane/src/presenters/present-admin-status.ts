import {
  type AdminStatusJson,
  type CertificateJson,
  certificateStatus,
  type DevServerStatusJson,
  diskLevel,
  type LastBackupJson,
} from '@devplein/contract/status';
import { BACKUP_NOT_INCLUDED } from '@devplein/contract/backups';
import type { AgentInfoView } from '../agent/health-monitor.ts';
import type { HostStatsView } from '../agent/clients/host-stats.ts';

/** What asking one dev server's agent gave. */
export type DevServerOutcome =
  | { kind: 'stats'; stats: HostStatsView }
  /** The agent did not answer (down, network, deadline): the row says 'onbereikbaar'. */
  | { kind: 'unreachable'; error: string }
  /** The agent answered, but without the status facts (older than contract 1.5.0, or it failed). */
  | { kind: 'incomplete'; error: string; info: AgentInfoView | null };

export interface DevServerIdentity {
  name: string;
  address: string;
  siteDomain: string;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

/** A backup run as the page shows it; null when none is recorded. */
export function presentLastBackup(run: { finishedAt: Date | null; ok: boolean; sizeBytes: number | null; message: string | null } | null): LastBackupJson | null {
  if (!run) return null;
  return { at: iso(run.finishedAt), ok: run.ok, sizeBytes: run.sizeBytes ?? 0, message: run.message ?? '' };
}

/**
 * One dev server's row of GET /api/admin/status. Its last backup is what the agent reports of
 * the host (`devplein backup --role agent` leaves a status file; the host has no database).
 */
export function presentDevServerStatus(server: DevServerIdentity, outcome: DevServerOutcome, now: Date): DevServerStatusJson {
  const lastBackup = outcome.kind === 'stats' ? presentLastBackup(outcome.stats.lastBackup) : null;
  const base = { name: server.name, address: server.address, siteDomain: server.siteDomain, lastBackup };
  const empty = { collectedAt: null, parts: null, disks: [], containers: null, certificate: null, cpu: null, memory: null };
  if (outcome.kind === 'unreachable') {
    return { ...base, ...empty, reachable: false, error: outcome.error, agentVersion: null, contractVersion: null, hostname: null };
  }
  if (outcome.kind === 'incomplete') {
    const info = outcome.info;
    return {
      ...base,
      ...empty,
      reachable: true,
      error: outcome.error,
      agentVersion: info?.agentVersion ?? null,
      contractVersion: info?.contractVersion ?? null,
      hostname: info?.hostname ?? null,
    };
  }
  const { stats } = outcome;
  return {
    ...base,
    reachable: true,
    error: null,
    agentVersion: stats.agentVersion,
    contractVersion: stats.contractVersion,
    hostname: stats.hostname,
    collectedAt: iso(stats.collectedAt),
    parts: {
      docker: { ...stats.parts.docker },
      proxy: { ...stats.parts.proxy },
      mysql: { ...stats.parts.mysql },
      browser: { ...stats.parts.browser },
      wireguard: { ...stats.parts.wireguard },
    },
    disks: stats.disks.map((disk) => ({ ...disk, level: diskLevel(disk) })),
    containers: stats.containers ? { ...stats.containers } : null,
    certificate: certificateStatus(stats.certificate.ok ? stats.certificate.notAfter : null, now, stats.certificate.detail),
    cpu: stats.cpu ? { ...stats.cpu } : null,
    memory: stats.memory ? { ...stats.memory } : null,
  };
}

/** A certificate file of the control plane's own side of the agent link, judged like the agents'. */
export function presentCertificateEnd(end: { notAfter: Date | null; detail: string } | null, now: Date): CertificateJson | null {
  return end ? certificateStatus(end.notAfter, now, end.detail) : null;
}

/** GET /api/admin/status */
export function presentAdminStatus(
  servers: DevServerStatusJson[],
  controlPlane: AdminStatusJson['controlPlane'],
  now: Date,
): AdminStatusJson {
  return { checkedAt: now.toISOString(), servers, controlPlane, backupNotIncluded: BACKUP_NOT_INCLUDED.all };
}
