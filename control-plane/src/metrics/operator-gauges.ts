import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import {
  type BackupState,
  type CertificateEnd,
  certificateEndOf,
  gaugesOn,
  packageVersion,
  readWithin,
  registerOperatorGauges,
  releaseVersion,
} from '@devplein/server-kit/operator-gauges';
import { activeAgentCertificateEnds } from '../queries/agent-certificates.ts';
import { latestBackupRun, latestSuccessfulBackupRun } from '../queries/backups.ts';

export interface ControlPlaneGaugeSources {
  knex: Knex;
  /** The link CA and the client certificate as read at start (what the links use until a restart); null: none configured. */
  certificatePems: { ca: string | Buffer; cert: string | Buffer } | null;
  logger: Logger;
  /** The backups' host label (default: this machine's name, as in the archive manifest). */
  host?: string;
  /** Time the database may take per scrape (a slow database must not stall Prometheus). */
  readTimeoutMs?: number;
}

/** This control plane's release (DEVPLEIN_VERSION, else control-plane/package.json, which a release bundle writes; found by name, as the bundle's files sit at other depths than the sources). */
export const CONTROL_PLANE_VERSION = releaseVersion(packageVersion(import.meta.url, '@devplein/control-plane'));

/** The control plane's backups as migration 0013's backup_runs records them. */
export async function controlPlaneBackupState(knex: Knex, host: string): Promise<BackupState> {
  const [last, lastSuccessful] = await Promise.all([latestBackupRun(knex), latestSuccessfulBackupRun(knex)]);
  return {
    role: 'control-plane',
    host,
    lastSuccessAt: lastSuccessful ? new Date(lastSuccessful.finished_at) : null,
    lastRun: last ? { finishedAt: new Date(last.finished_at), ok: last.ok } : null,
  };
}

/** The CA's and the client certificate's ends (as loaded at start), then each pinned agent's (from the database). */
export async function controlPlaneCertificateEnds(sources: ControlPlaneGaugeSources, loaded: readonly CertificateEnd[]): Promise<CertificateEnd[]> {
  const agents = await readWithin(() => activeAgentCertificateEnds(sources.knex), sources.readTimeoutMs ?? 2_000, (error) =>
    sources.logger.debug({ err: error }, 'metrics: agent certificates not read; leaving them out'),
  );
  return [...loaded, ...(agents ?? []).map((agent): CertificateEnd => ({ certificate: 'agent', host: agent.name, notAfter: agent.notAfter }))];
}

/**
 * Registers devplein_build_info and the backup and certificate gauges, read at each scrape (three
 * small queries; no timer). A backup state the database does not give in time keeps its last values.
 */
export function registerControlPlaneGauges(registry: Registry, sources: ControlPlaneGaugeSources): void {
  const host = sources.host ?? os.hostname();
  const pems = sources.certificatePems;
  const loaded = pems ? [certificateEndOf(pems.ca, 'ca'), certificateEndOf(pems.cert, 'control-plane')].filter((end): end is CertificateEnd => end !== null) : [];
  registerOperatorGauges(gaugesOn(Gauge, registry), {
    version: CONTROL_PLANE_VERSION,
    backups: async () => {
      const state = await readWithin(() => controlPlaneBackupState(sources.knex, host), sources.readTimeoutMs ?? 2_000, (error) =>
        sources.logger.debug({ err: error }, 'metrics: backup runs not read; keeping the previous values'),
      );
      return state ? [state] : undefined;
    },
    certificates: () => controlPlaneCertificateEnds(sources, loaded),
  });
}
