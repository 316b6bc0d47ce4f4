import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../agent/agent-error.ts';
import type { ContainerStatsView } from '../agent/clients/container-stats.ts';
import { ContainerStatsWatches } from './container-stats-watches.ts';

const sample = (second: number, cpuPercent = 1): ContainerStatsView => ({
  containerId: 'c1',
  readAt: new Date(Date.UTC(2026, 10, 27, 10, 0, second)),
  cpuPercent,
  onlineCpus: 2,
  memoryUsedBytes: 100,
  memoryLimitBytes: 1000,
  networkRxBytes: 0,
  networkTxBytes: 0,
  blockReadBytes: 0,
  blockWriteBytes: 0,
  pids: 1,
  oomKilled: false,
  restartCount: 0,
  sizeRw: null,
});

/** A fake agent whose watches the test feeds; counts the ones open. */
function fakeAgents(fail?: AgentError) {
  const open: Array<{ push: (view: ContainerStatsView) => void; signal: AbortSignal | undefined }> = [];
  let opened = 0;
  const agents = {
    forHost: () => ({
      containerStats: {
        getContainerStats: () => Promise.reject(new Error('not used')),
        watchContainerStats: (_target: unknown, options?: { signal?: AbortSignal }) => {
          opened += 1;
          const queue: ContainerStatsView[] = [];
          let wake: (() => void) | undefined;
          const entry = {
            push: (view: ContainerStatsView) => {
              queue.push(view);
              wake?.();
            },
            signal: options?.signal,
          };
          open.push(entry);
          return (async function* () {
            if (fail) throw fail;
            while (!options?.signal?.aborted) {
              const next = queue.shift();
              if (next) {
                yield next;
                continue;
              }
              await new Promise<void>((resolve) => {
                wake = resolve;
                options?.signal?.addEventListener('abort', () => resolve(), { once: true });
              });
            }
          })();
        },
      },
    }),
  };
  return { agents: agents as never, open, opened: () => opened };
}

const logger = pino({ level: 'silent' });

describe('ContainerStatsWatches', () => {
  it('serves every reader of one container from one agent watch and keeps 5 s points', async () => {
    const fake = fakeAgents();
    const watches = new ContainerStatsWatches({ agents: fake.agents, logger, firstSampleMs: 2_000 });
    const first = watches.read('dev1', 7);
    fake.open[0]?.push(sample(0));
    expect(await first).toMatchObject({ status: 'live' });
    for (let second = 1; second <= 11; second += 1) fake.open[0]?.push(sample(second, second));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const answers = await Promise.all(Array.from({ length: 30 }, () => watches.read('dev1', 7)));
    expect(fake.opened()).toBe(1);
    for (const answer of answers) {
      if (answer.status !== 'live') throw new Error('not live');
      expect(answer.current.cpuPercent).toBe(11);
      expect(answer.history.map((point) => point.at.getUTCSeconds())).toEqual([0, 5, 10]);
    }
    watches.close();
  });

  it('closes a watch nobody read for the idle time', async () => {
    let now = 0;
    const fake = fakeAgents();
    const watches = new ContainerStatsWatches({ agents: fake.agents, logger, idleMs: 50, now: () => now });
    const reading = watches.read('dev1', 7);
    fake.open[0]?.push(sample(0));
    await reading;
    expect(watches.openWatches()).toBe(1);
    now = 100;
    const deadline = Date.now() + 2_000;
    while (watches.openWatches() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(watches.openWatches()).toBe(0);
    expect(fake.open[0]?.signal?.aborted).toBe(true);
    watches.close();
  });

  it('answers unsupported for an old agent and not-running for a stopped container', async () => {
    const old = new ContainerStatsWatches({ agents: fakeAgents(new AgentError(grpc.status.UNIMPLEMENTED, 'no')).agents, logger });
    expect(await old.read('dev1', 7)).toEqual({ status: 'unsupported' });
    const stopped = new ContainerStatsWatches({ agents: fakeAgents(new AgentError(grpc.status.FAILED_PRECONDITION, 'exited')).agents, logger });
    expect(await stopped.read('dev1', 7)).toEqual({ status: 'not-running' });
    const away = new ContainerStatsWatches({ agents: fakeAgents(new AgentError(grpc.status.UNAVAILABLE, 'gone')).agents, logger });
    await expect(away.read('dev1', 7)).rejects.toMatchObject({ unreachable: true });
  });
});
