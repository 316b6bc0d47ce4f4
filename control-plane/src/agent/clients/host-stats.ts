import type { GetHostStatsResponse, HostStatsServiceClient, PartHealth, StateCount } from '@devplein/proto/host_stats';
import type { UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';

/** One part of the host as the agent judged it. */
export interface PartHealthView {
  ok: boolean;
  detail: string;
}

/** HostStatsService.GetHostStats as plain values (no proto message leaves the agent client). */
export interface HostStatsView {
  agentVersion: string;
  contractVersion: string;
  hostname: string;
  collectedAt: Date | null;
  startedAt: Date | null;
  parts: { docker: PartHealthView; proxy: PartHealthView; mysql: PartHealthView; browser: PartHealthView; wireguard: PartHealthView };
  disks: Array<{ name: string; path: string; totalBytes: number; availableBytes: number; ok: boolean; error: string }>;
  /** null when the agent could not ask the Docker engine. */
  containers: { total: number; managed: number; byState: Record<string, number>; managedByState: Record<string, number> } | null;
  certificate: { ok: boolean; notAfter: Date | null; detail: string };
  cpu: { cores: number; load1m: number; load5m: number; load15m: number } | null;
  memory: { totalBytes: number; availableBytes: number } | null;
  /** The host's last backup; null when none is recorded (or the agent did not say). */
  lastBackup: { finishedAt: Date | null; ok: boolean; sizeBytes: number; message: string } | null;
}

/** HostStatsService over the link (contract 1.5.0; an older agent answers UNIMPLEMENTED). */
export interface HostStatsApi {
  getHostStats(options?: AgentCallOptions): Promise<HostStatsView>;
}

const notReported: PartHealthView = { ok: false, detail: 'niet gemeld door de agent' };
const part = (value: PartHealth | undefined): PartHealthView => (value ? { ok: value.ok, detail: value.detail } : { ...notReported });
const byState = (counts: StateCount[]): Record<string, number> => Object.fromEntries(counts.map((each) => [each.state, each.count]));

export function hostStatsView(response: GetHostStatsResponse): HostStatsView {
  const containers = response.containers;
  return {
    agentVersion: response.agentVersion,
    contractVersion: response.contractVersion,
    hostname: response.hostname,
    collectedAt: response.collectedAt ?? null,
    startedAt: response.startedAt ?? null,
    parts: {
      docker: part(response.docker),
      proxy: part(response.proxy),
      mysql: part(response.mysql),
      browser: part(response.browser),
      wireguard: part(response.wireguard),
    },
    disks: response.disks.map(({ name, path, totalBytes, availableBytes, ok, error }) => ({ name, path, totalBytes, availableBytes, ok, error })),
    containers: containers?.known
      ? { total: containers.total, managed: containers.managed, byState: byState(containers.byState), managedByState: byState(containers.managedByState) }
      : null,
    certificate: response.certificate
      ? { ok: response.certificate.ok, notAfter: response.certificate.notAfter ?? null, detail: response.certificate.detail }
      : { ok: false, notAfter: null, detail: 'niet gemeld door de agent' },
    cpu: response.cpu ? { ...response.cpu } : null,
    memory: response.memory ? { ...response.memory } : null,
    lastBackup: response.lastBackup?.known
      ? { finishedAt: response.lastBackup.finishedAt ?? null, ok: response.lastBackup.ok, sizeBytes: response.lastBackup.sizeBytes, message: response.lastBackup.message }
      : null,
  };
}

export function createHostStatsClient(client: HostStatsServiceClient, unary: UnaryCall): HostStatsApi {
  return {
    getHostStats: async (callOptions) =>
      hostStatsView(await unary<GetHostStatsResponse>('GetHostStats', (md, opts, cb) => client.getHostStats({}, md, opts, cb), callOptions)),
  };
}
