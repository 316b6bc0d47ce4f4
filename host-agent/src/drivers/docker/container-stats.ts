/**
 * Docker's stats JSON (GET /containers/{id}/stats) turned into the numbers `docker stats` shows.
 * Checked against Docker 20.10 on cgroup v1 and v2:
 *
 * - CPU % needs two samples: (cpu delta / system delta) × online CPUs × 100, the deltas between
 *   `cpu_stats` and `precpu_stats` (each streamed sample carries the previous one as precpu).
 * - memory in use = usage − inactive page cache: cgroup v1 `stats.total_inactive_file`, v2
 *   `stats.inactive_file` (the page cache the kernel drops first is not "used").
 * - block I/O from `blkio_stats.io_service_bytes_recursive`: op "Read"/"Write" on v1,
 *   "read"/"write" on v2.
 */

interface CpuUsage {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] | null };
  system_cpu_usage?: number;
  online_cpus?: number;
}

/** The part of Docker's stats JSON the agent reads. */
export interface DockerStatsJson {
  read?: string;
  cpu_stats?: CpuUsage;
  precpu_stats?: CpuUsage;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number | undefined> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number } | undefined> | null;
  blkio_stats?: { io_service_bytes_recursive?: Array<{ op?: string; value?: number }> | null };
  pids_stats?: { current?: number };
}

/** Facts the stats endpoint does not carry: from inspecting the container. */
export interface ContainerStateFacts {
  running: boolean;
  oomKilled: boolean;
  restartCount: number;
}

/** One sample as the contract reports it (ContainerStats), with plain values. */
export interface ContainerStatsSample {
  containerId: string;
  readAt: Date;
  cpuPercent: number;
  onlineCpus: number;
  memoryUsedBytes: number;
  memoryLimitBytes: number;
  networkRxBytes: number;
  networkTxBytes: number;
  blockReadBytes: number;
  blockWriteBytes: number;
  pids: number;
  oomKilled: boolean;
  restartCount: number;
  sizeRwBytes: number;
  sizeRwAt: Date | undefined;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Docker's "zero time": what `read` says of a container that is not running. */
export function isZeroRead(json: DockerStatsJson): boolean {
  return !json.read || json.read.startsWith('0001-01-01');
}

/** Online CPUs: `online_cpus`, else (older engines) the length of the per-CPU list, at least 1. */
export function onlineCpus(json: DockerStatsJson): number {
  const online = num(json.cpu_stats?.online_cpus);
  if (online > 0) return online;
  return Math.max(1, json.cpu_stats?.cpu_usage?.percpu_usage?.length ?? 0);
}

/** CPU % as `docker stats`: 0 without a previous sample (or when nothing moved). */
export function cpuPercent(json: DockerStatsJson): number {
  const cpuDelta = num(json.cpu_stats?.cpu_usage?.total_usage) - num(json.precpu_stats?.cpu_usage?.total_usage);
  const systemDelta = num(json.cpu_stats?.system_cpu_usage) - num(json.precpu_stats?.system_cpu_usage);
  if (!json.precpu_stats?.system_cpu_usage || systemDelta <= 0 || cpuDelta < 0) return 0;
  return (cpuDelta / systemDelta) * onlineCpus(json) * 100;
}

/** Memory in use as `docker stats`: usage minus the inactive page cache (v1 and v2 names), never negative. */
export function memoryUsed(json: DockerStatsJson): number {
  const usage = num(json.memory_stats?.usage);
  const stats = json.memory_stats?.stats ?? {};
  const inactive = stats.total_inactive_file !== undefined ? num(stats.total_inactive_file) : num(stats.inactive_file);
  return Math.max(0, usage - inactive);
}

export function networkBytes(json: DockerStatsJson): { rx: number; tx: number } {
  let rx = 0;
  let tx = 0;
  for (const network of Object.values(json.networks ?? {})) {
    rx += num(network?.rx_bytes);
    tx += num(network?.tx_bytes);
  }
  return { rx, tx };
}

export function blockBytes(json: DockerStatsJson): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const entry of json.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = entry.op?.toLowerCase();
    if (op === 'read') read += num(entry.value);
    else if (op === 'write') write += num(entry.value);
  }
  return { read, write };
}

/** The contract's sample of one stats JSON, the container's state facts and its last SizeRw. */
export function statsSample(
  containerId: string,
  json: DockerStatsJson,
  facts: Pick<ContainerStateFacts, 'oomKilled' | 'restartCount'>,
  size: { bytes: number; at: Date } | undefined,
): ContainerStatsSample {
  const network = networkBytes(json);
  const block = blockBytes(json);
  const readAt = json.read && !isZeroRead(json) ? new Date(json.read) : new Date();
  return {
    containerId,
    readAt: Number.isNaN(readAt.getTime()) ? new Date() : readAt,
    cpuPercent: Math.round(cpuPercent(json) * 100) / 100,
    onlineCpus: onlineCpus(json),
    memoryUsedBytes: memoryUsed(json),
    memoryLimitBytes: num(json.memory_stats?.limit),
    networkRxBytes: network.rx,
    networkTxBytes: network.tx,
    blockReadBytes: block.read,
    blockWriteBytes: block.write,
    pids: num(json.pids_stats?.current),
    oomKilled: facts.oomKilled,
    restartCount: facts.restartCount,
    sizeRwBytes: size?.bytes ?? 0,
    sizeRwAt: size?.at,
  };
}
