import os from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { type BackupState, certificateEndOf, gaugesOn, registerOperatorGauges, releaseVersion } from '@devplein/server-kit/operator-gauges';
import { AGENT_VERSION } from '../agent-version.ts';
import { lastBackup } from '../drivers/host/host-probes.ts';

export interface AgentGaugeSources {
  /** AGENT_DATA_DIR, where `devplein backup --role agent` leaves its status (HostStats reads the same). */
  dataDir: string;
  /** The certificate the gRPC server serves: the one read at start (a renewed file counts after the restart). */
  servedCertificatePem: string | Buffer;
  /** The backups' host label (default: this machine's name, as in the archive manifest). */
  host?: string;
}

/** This agent's release (DEVPLEIN_VERSION, else host-agent/package.json, which a bundle writes). */
export const AGENT_RELEASE_VERSION = releaseVersion(AGENT_VERSION);

/** This dev server's backups as the status file of the last run says (the same reading as HostStats'). */
export async function agentBackupState(dataDir: string, host: string): Promise<BackupState> {
  const last = await lastBackup(dataDir);
  return {
    role: 'agent',
    host,
    lastSuccessAt: last.lastSuccessAt ?? null,
    lastRun: last.known ? { finishedAt: last.finishedAt ?? null, ok: last.ok } : null,
  };
}

/**
 * Registers devplein_build_info and the backup and certificate gauges: the status file is read
 * at each scrape (one small file; no timer), the served certificate once.
 */
export function registerAgentGauges(registry: Registry, sources: AgentGaugeSources): void {
  const host = sources.host ?? os.hostname();
  const served = certificateEndOf(sources.servedCertificatePem, 'agent');
  registerOperatorGauges(gaugesOn(Gauge, registry), {
    version: AGENT_RELEASE_VERSION,
    backups: async () => [await agentBackupState(sources.dataDir, host)],
    certificates: async () => (served ? [served] : []),
  });
}
