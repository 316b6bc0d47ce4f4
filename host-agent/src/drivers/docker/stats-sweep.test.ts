import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ContainerStateFacts, ContainerStatsSample, DockerStatsJson } from './container-stats.ts';
import { mapBounded, StatsSweeper, type SweepSource } from './stats-sweep.ts';

const logger = pino({ level: 'silent' });

/** A fake engine: each container's CPU counter moved by `busy` since the previous tick; counts calls and how many run at once. */
class FakeEngine implements SweepSource {
  containers = new Map<string, { name: string; projectId: number; busy: number; memory: number }>();
  /** Listed as running, gone by the time it is sampled. */
  readonly gone = new Set<string>();
  calls = 0;
  inFlight = 0;
  mostAtOnce = 0;
  lists = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  /** Holds every sample until release() (to see callers share one sweep). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
  }

  running = async () => {
    this.lists += 1;
    return [...this.containers].map(([id, container]) => ({ id, name: container.name, projectId: container.projectId }));
  };
  once = async (containerId: string): Promise<DockerStatsJson> => {
    this.calls += 1;
    this.inFlight += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.inFlight);
    await this.gate;
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight -= 1;
    const container = this.containers.get(containerId);
    if (!container || this.gone.has(containerId)) throw new Error('no such container');
    return {
      read: '2026-11-27T10:00:02.000Z',
      precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 10_000, online_cpus: 2 },
      cpu_stats: { cpu_usage: { total_usage: 1_000 + container.busy }, system_cpu_usage: 11_000, online_cpus: 2 },
      memory_stats: { usage: container.memory + 50, limit: 1_000_000, stats: { inactive_file: 50 } },
    };
  };
  facts = async (containerId: string): Promise<ContainerStateFacts> => ({ running: this.containers.has(containerId), oomKilled: false, restartCount: 2 });
}

function engineWith(count: number): FakeEngine {
  const engine = new FakeEngine();
  for (let i = 0; i < count; i += 1) engine.containers.set(`id${i}`, { name: `project-${i}`, projectId: i + 1, busy: i * 10, memory: 1_000 * (i + 1) });
  return engine;
}

describe('StatsSweeper: every running managed container at once', () => {
  it('samples each container once (with its inspect), at most `concurrency` at once', async () => {
    const engine = engineWith(20);
    const sweeper = new StatsSweeper({ source: engine, logger, concurrency: 4 });
    const sweep = await sweeper.current();
    expect(engine.calls).toBe(20);
    expect(engine.mostAtOnce).toBe(4);
    expect(sweep.containers).toHaveLength(20);
    const five = sweep.containers.find((container) => container.name === 'project-5');
    // (50 / 1000) × 2 CPUs × 100; memory without the inactive page cache, as `docker stats`.
    expect(five?.stats).toMatchObject({ cpuPercent: 10, memoryUsedBytes: 6_000, restartCount: 2, sizeRwAt: undefined });
    expect(five?.projectId).toBe(6);
  });

  it('answers callers during a sweep and for 15 s after it finished from that one sweep, however long it took', async () => {
    const engine = engineWith(3);
    let now = 1_000_000;
    const sweeper = new StatsSweeper({ source: engine, logger, now: () => new Date(now) });
    engine.hold();
    const first = sweeper.current();
    await new Promise((resolve) => setImmediate(resolve));
    // The sweep takes longer than the cache time: callers meanwhile still share it.
    now += 20_000;
    const during = [sweeper.current(), sweeper.current()];
    engine.release();
    const answers = await Promise.all([first, ...during]);
    expect(new Set(answers).size).toBe(1);
    now += 14_000;
    expect(await sweeper.current()).toBe(answers[0]);
    expect(sweeper.sweeps).toBe(1);
    expect(engine.lists).toBe(1);
    now += 1_000;
    await sweeper.current();
    expect(sweeper.sweeps).toBe(2);
  });

  it('uses a watched container’s latest sample instead of asking Docker, and leaves out one that stopped', async () => {
    const engine = engineWith(3);
    engine.gone.add('id2');
    const watched = { containerId: 'id0', cpuPercent: 77 } as ContainerStatsSample;
    const sweeper = new StatsSweeper({ source: engine, logger, watchedSample: (id) => (id === 'id0' ? watched : undefined) });
    const sweep = await sweeper.current();
    expect(sweep.containers.map((container) => container.name)).toEqual(['project-0', 'project-1']);
    expect(sweep.containers[0]?.stats).toBe(watched);
    // id0 was never asked.
    expect(engine.calls).toBe(2);
  });

  it('does not keep a failed sweep: the next caller tries again', async () => {
    const engine = engineWith(1);
    const sweeper = new StatsSweeper({ source: engine, logger });
    const working = engine.running;
    engine.running = () => Promise.reject(new Error('engine away'));
    await expect(sweeper.current()).rejects.toThrow('engine away');
    engine.running = working;
    expect((await sweeper.current()).containers).toHaveLength(1);
  });
});

describe('mapBounded', () => {
  it('keeps the order and handles an empty list', async () => {
    expect(await mapBounded([3, 1, 2], 2, async (value) => value * 2)).toEqual([6, 2, 4]);
    expect(await mapBounded([], 4, async (value: number) => value)).toEqual([]);
  });
});
