import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ContainerStateFacts, ContainerStatsSample, DockerStatsJson } from './container-stats.ts';
import { mapBounded, StatsSweeper, type SweepSource } from './stats-sweep.ts';

const logger = pino({ level: 'silent' });

/** A fake engine: each container's CPU counter moves by `busy` per call; counts calls and how many run at once. */
class FakeEngine implements SweepSource {
  containers = new Map<string, { name: string; projectId: number; busy: number; memory: number; running: boolean }>();
  calls = 0;
  inFlight = 0;
  mostAtOnce = 0;
  lists = 0;
  private ticks = new Map<string, number>();
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  /** Holds every engine call until release() (to see callers share one sweep). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  running = async () => {
    this.lists += 1;
    await this.gate;
    return [...this.containers].filter(([, container]) => container.running).map(([id, container]) => ({ id, name: container.name, projectId: container.projectId }));
  };
  oneShot = async (containerId: string): Promise<DockerStatsJson> => {
    this.calls += 1;
    this.inFlight += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight -= 1;
    const container = this.containers.get(containerId);
    if (!container) throw new Error('no such container');
    const tick = (this.ticks.get(containerId) ?? 0) + 1;
    this.ticks.set(containerId, tick);
    return {
      read: `2026-11-27T10:00:0${tick}.000Z`,
      cpu_stats: { cpu_usage: { total_usage: tick * container.busy }, system_cpu_usage: tick * 1_000, online_cpus: 2 },
      memory_stats: { usage: container.memory + 50, limit: 1_000_000, stats: { inactive_file: 50 } },
    };
  };
  facts = async (containerId: string): Promise<ContainerStateFacts> => ({ running: this.containers.get(containerId)?.running ?? false, oomKilled: false, restartCount: 2 });
}

function engineWith(count: number): FakeEngine {
  const engine = new FakeEngine();
  for (let i = 0; i < count; i += 1) engine.containers.set(`id${i}`, { name: `project-${i}`, projectId: i + 1, busy: i * 10, memory: 1_000 * (i + 1), running: true });
  return engine;
}

describe('StatsSweeper: every running managed container at once', () => {
  it('samples each container twice a CPU window apart, at most `concurrency` at once', async () => {
    const engine = engineWith(20);
    let slept = 0;
    const sweeper = new StatsSweeper({ source: engine, logger, concurrency: 4, sleep: async (ms) => void (slept += ms) });
    const sweep = await sweeper.current();
    expect(slept).toBe(1_000);
    expect(engine.calls).toBe(40);
    expect(engine.mostAtOnce).toBe(4);
    expect(sweep.containers).toHaveLength(20);
    const five = sweep.containers.find((container) => container.name === 'project-5');
    // (50 / 1000) × 2 CPUs × 100; memory without the inactive page cache, as `docker stats`.
    expect(five?.stats).toMatchObject({ cpuPercent: 10, memoryUsedBytes: 6_000, restartCount: 2, sizeRwAt: undefined });
    expect(five?.projectId).toBe(6);
  });

  it('answers every caller within the cache time, and callers during a sweep, from one sweep', async () => {
    const engine = engineWith(3);
    let now = 1_000_000;
    const sweeper = new StatsSweeper({ source: engine, logger, sleep: async () => undefined, now: () => new Date(now) });
    engine.hold();
    const during = [sweeper.current(), sweeper.current(), sweeper.current()];
    engine.release();
    const answers = await Promise.all(during);
    expect(new Set(answers).size).toBe(1);
    now += 14_000;
    expect(await sweeper.current()).toBe(answers[0]);
    expect(sweeper.sweeps).toBe(1);
    expect(engine.lists).toBe(1);
    now += 1_000;
    await sweeper.current();
    expect(sweeper.sweeps).toBe(2);
  });

  it('uses a watched container’s latest sample instead of asking Docker, and leaves out one that stops during the sweep', async () => {
    const engine = engineWith(3);
    const watched = { containerId: 'id0', cpuPercent: 77 } as ContainerStatsSample;
    const sweeper = new StatsSweeper({
      source: engine,
      logger,
      watchedSample: (id) => (id === 'id0' ? watched : undefined),
      sleep: async () => {
        // id2 goes away between the two samples.
        engine.containers.delete('id2');
      },
    });
    const sweep = await sweeper.current();
    expect(sweep.containers.map((container) => container.name)).toEqual(['project-0', 'project-1']);
    expect(sweep.containers[0]?.stats).toBe(watched);
    // id0 was never asked: two calls for id1, and for id2 the first and the failed second.
    expect(engine.calls).toBe(4);
  });

  it('does not keep a failed sweep: the next caller tries again', async () => {
    const engine = engineWith(1);
    const sweeper = new StatsSweeper({ source: engine, logger, sleep: async () => undefined });
    const failing = engine.running;
    engine.running = () => Promise.reject(new Error('engine away'));
    await expect(sweeper.current()).rejects.toThrow('engine away');
    engine.running = failing;
    expect((await sweeper.current()).containers).toHaveLength(1);
  });
});

describe('mapBounded', () => {
  it('keeps the order and handles an empty list', async () => {
    expect(await mapBounded([3, 1, 2], 2, async (value) => value * 2)).toEqual([6, 2, 4]);
    expect(await mapBounded([], 4, async (value: number) => value)).toEqual([]);
  });
});
