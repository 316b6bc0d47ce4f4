import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ContainerStateFacts, ContainerStatsSample, DockerStatsJson } from './container-stats.ts';
import { type StatsListener, type StatsSource, StatsHub } from './stats-hub.ts';

const json = (second: number): DockerStatsJson => ({
  read: `2026-11-27T10:00:${String(second).padStart(2, '0')}.000Z`,
  cpu_stats: { cpu_usage: { total_usage: 2_000 + second * 100 }, system_cpu_usage: 10_000 + second * 1_000, online_cpus: 1 },
  precpu_stats: { cpu_usage: { total_usage: 2_000 + (second - 1) * 100 }, system_cpu_usage: 10_000 + (second - 1) * 1_000, online_cpus: 1 },
  memory_stats: { usage: 100, limit: 1000, stats: { total_inactive_file: 0 } },
});

/** A fake engine: counts the streams it has open and lets the test push samples into them. */
class FakeSource implements StatsSource {
  readonly streams = new Map<string, { onSample: (json: DockerStatsJson) => void; onEnd: (error?: unknown) => void }>();
  opened = 0;
  sizeCalls = 0;
  facts_: ContainerStateFacts = { running: true, oomKilled: false, restartCount: 0 };
  open(containerId: string, onSample: (json: DockerStatsJson) => void, onEnd: (error?: unknown) => void) {
    this.opened += 1;
    this.streams.set(containerId, { onSample, onEnd });
    return { close: () => this.streams.delete(containerId) };
  }
  once = async (): Promise<DockerStatsJson> => json(1);
  facts = async (): Promise<ContainerStateFacts> => ({ ...this.facts_ });
  sizeRw = async (): Promise<number> => {
    this.sizeCalls += 1;
    return 4096;
  };
  push(containerId: string, second: number): void {
    this.streams.get(containerId)?.onSample(json(second));
  }
}

function collector(): StatsListener & { samples: ContainerStatsSample[]; ended: unknown[] } {
  const samples: ContainerStatsSample[] = [];
  const ended: unknown[] = [];
  return { samples, ended, onSample: (sample) => samples.push(sample), onEnd: (error) => ended.push(error ?? 'ended') };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition not met');
}

const logger = pino({ level: 'silent' });

describe('StatsHub: one Docker stats stream per watched container', () => {
  it('shares one stream among every watcher and closes it when the last one leaves', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    const watchers = Array.from({ length: 30 }, () => collector());
    const stops = watchers.map((watcher) => hub.watch('c1', watcher));
    await until(() => source.streams.has('c1'));
    expect(source.opened).toBe(1);
    expect(hub.openStreams()).toBe(1);
    expect(hub.watchers('c1')).toBe(30);

    source.push('c1', 2);
    for (const watcher of watchers) expect(watcher.samples.map((sample) => sample.cpuPercent)).toEqual([10]);

    stops.slice(0, 29).forEach((stop) => stop());
    expect(source.streams.has('c1')).toBe(true);
    expect(hub.openStreams()).toBe(1);
    stops[29]?.();
    expect(source.streams.has('c1')).toBe(false);
    expect(hub.openStreams()).toBe(0);
    // Stopping twice changes nothing.
    stops[0]?.();
    expect(source.opened).toBe(1);
  });

  it('opens no stream when nobody watches, and a new one for a new watcher later', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    expect(hub.openStreams()).toBe(0);
    const stop = hub.watch('c1', collector());
    await until(() => source.streams.has('c1'));
    stop();
    expect(hub.openStreams()).toBe(0);
    hub.watch('c1', collector());
    await until(() => source.opened === 2);
    expect(hub.openStreams()).toBe(1);
  });

  it('gives separate containers separate streams', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    const a = collector();
    const b = collector();
    hub.watch('c1', a);
    hub.watch('c2', b);
    await until(() => source.streams.size === 2);
    source.push('c1', 2);
    expect(a.samples).toHaveLength(1);
    expect(b.samples).toHaveLength(0);
  });

  it('gives a later watcher the latest sample at once, and a one-shot call the watch\'s sample', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    hub.watch('c1', collector());
    await until(() => source.streams.has('c1'));
    source.push('c1', 5);
    const late = collector();
    hub.watch('c1', late);
    expect(late.samples).toHaveLength(1);
    expect((await hub.sample('c1')).readAt).toEqual(new Date('2026-11-27T10:00:05.000Z'));
    expect(source.opened).toBe(1);
  });

  it('ends every watcher when the container stops (zero read) and closes the stream', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    const watcher = collector();
    hub.watch('c1', watcher);
    await until(() => source.streams.has('c1'));
    source.streams.get('c1')?.onSample({ read: '0001-01-01T00:00:00Z' });
    expect(watcher.ended).toEqual(['ended']);
    expect(hub.openStreams()).toBe(0);
  });

  it('ends the watch with the error when the engine ends the stream', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    const watcher = collector();
    hub.watch('c1', watcher);
    await until(() => source.streams.has('c1'));
    const failure = new Error('engine gone');
    source.streams.get('c1')?.onEnd(failure);
    expect(watcher.ended).toEqual([failure]);
    expect(hub.watchers('c1')).toBe(0);
  });

  it('reports OOMKilled and the restart count from inspecting the container', async () => {
    const source = new FakeSource();
    source.facts_ = { running: true, oomKilled: true, restartCount: 3 };
    const hub = new StatsHub({ source, logger });
    const watcher = collector();
    hub.watch('c1', watcher);
    await until(() => source.streams.has('c1'));
    source.push('c1', 2);
    expect(watcher.samples[0]).toMatchObject({ oomKilled: true, restartCount: 3 });
  });

  it('samples SizeRw at most every interval per container', async () => {
    let now = new Date('2026-11-27T10:00:00.000Z');
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger, sizeEveryMs: 300_000, now: () => now });
    const watcher = collector();
    hub.watch('c1', watcher);
    await until(() => source.streams.has('c1'));
    for (let second = 2; second < 10; second += 1) {
      source.push('c1', second);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(source.sizeCalls).toBe(1);
    expect(watcher.samples.at(-1)).toMatchObject({ sizeRwBytes: 4096 });
    now = new Date(now.getTime() + 299_000);
    source.push('c1', 11);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.sizeCalls).toBe(1);
    now = new Date(now.getTime() + 2_000);
    source.push('c1', 12);
    await until(() => source.sizeCalls === 2);
  });

  it('answers a one-shot call from the engine when nobody watches, without opening a stream', async () => {
    const source = new FakeSource();
    const hub = new StatsHub({ source, logger });
    const sample = await hub.sample('c9');
    expect(sample).toMatchObject({ containerId: 'c9', memoryUsedBytes: 100, memoryLimitBytes: 1000, sizeRwBytes: 4096 });
    expect(source.opened).toBe(0);
  });
});
