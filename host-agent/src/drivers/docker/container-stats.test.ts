import { describe, expect, it } from 'vitest';
import { blockBytes, cpuPercent, type DockerStatsJson, memoryUsed, networkBytes, statsSample } from './container-stats.ts';

/** A Docker 20.10 sample on cgroup v1 (trimmed): 2 online CPUs, 0.5 s of CPU in 2 s of system time. */
const v1: DockerStatsJson = {
  read: '2026-11-27T10:00:01.000Z',
  cpu_stats: { cpu_usage: { total_usage: 1_500_000_000, percpu_usage: [1, 2] }, system_cpu_usage: 12_000_000_000, online_cpus: 2 },
  precpu_stats: { cpu_usage: { total_usage: 1_000_000_000 }, system_cpu_usage: 10_000_000_000, online_cpus: 2 },
  memory_stats: { usage: 300 * 1024 * 1024, limit: 512 * 1024 * 1024, stats: { total_inactive_file: 88 * 1024 * 1024, inactive_file: 1 } },
  networks: { eth0: { rx_bytes: 1000, tx_bytes: 200 }, eth1: { rx_bytes: 5, tx_bytes: 7 } },
  blkio_stats: { io_service_bytes_recursive: [{ op: 'Read', value: 4096 }, { op: 'Write', value: 8192 }, { op: 'Sync', value: 1 }, { op: 'Total', value: 12288 }] },
  pids_stats: { current: 7 },
};

describe('docker stats numbers', () => {
  it('computes CPU % as docker stats: cpu delta / system delta × online CPUs × 100', () => {
    expect(cpuPercent(v1)).toBeCloseTo(50);
  });

  it('reports 0 % for a first sample without a previous one', () => {
    expect(cpuPercent({ ...v1, precpu_stats: {} })).toBe(0);
  });

  it('counts the CPUs from percpu_usage when online_cpus is missing (older engines)', () => {
    const older: DockerStatsJson = { ...v1, cpu_stats: { ...v1.cpu_stats, online_cpus: undefined } };
    expect(cpuPercent(older)).toBeCloseTo(50);
  });

  it('takes memory as usage minus total_inactive_file on cgroup v1', () => {
    expect(memoryUsed(v1)).toBe(212 * 1024 * 1024);
  });

  it('takes memory as usage minus inactive_file on cgroup v2', () => {
    expect(memoryUsed({ memory_stats: { usage: 1000, stats: { inactive_file: 400 } } })).toBe(600);
  });

  it('never reports negative memory', () => {
    expect(memoryUsed({ memory_stats: { usage: 10, stats: { inactive_file: 400 } } })).toBe(0);
  });

  it('sums every network and reads block I/O in both spellings', () => {
    expect(networkBytes(v1)).toEqual({ rx: 1005, tx: 207 });
    expect(blockBytes(v1)).toEqual({ read: 4096, write: 8192 });
    expect(blockBytes({ blkio_stats: { io_service_bytes_recursive: [{ op: 'read', value: 3 }, { op: 'write', value: 4 }] } })).toEqual({ read: 3, write: 4 });
    expect(blockBytes({ blkio_stats: { io_service_bytes_recursive: null } })).toEqual({ read: 0, write: 0 });
  });

  it('makes one sample with the state facts and the last size', () => {
    const at = new Date('2026-11-27T09:58:00.000Z');
    const sample = statsSample('abc', v1, { oomKilled: true, restartCount: 3 }, { bytes: 4096, at });
    expect(sample).toMatchObject({
      containerId: 'abc',
      readAt: new Date('2026-11-27T10:00:01.000Z'),
      cpuPercent: 50,
      onlineCpus: 2,
      memoryUsedBytes: 212 * 1024 * 1024,
      memoryLimitBytes: 512 * 1024 * 1024,
      pids: 7,
      oomKilled: true,
      restartCount: 3,
      sizeRwBytes: 4096,
      sizeRwAt: at,
    });
  });
});
