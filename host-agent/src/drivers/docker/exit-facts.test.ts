import { describe, expect, it } from 'vitest';
import { statusText } from './container-status.ts';
import { ExitFactsCache, type ExitState } from './exit-facts.ts';

const now = new Date('2026-11-27T12:00:00Z');
const exited = (finishedAt: string, exitCode: number, oomKilled: boolean): ExitState => ({
  Status: 'exited',
  Running: false,
  Paused: false,
  Restarting: false,
  Dead: false,
  ExitCode: exitCode,
  StartedAt: '2026-11-27T09:00:00Z',
  FinishedAt: finishedAt,
  OOMKilled: oomKilled,
});
const managed = { 'devplein.managed': 'true' };
const view = (id: string, state: ExitState | { Status: string }, labels: Record<string, string> = managed) => ({
  id,
  state: state.Status,
  status: 'ExitCode' in state ? statusText(state, now) : 'Up 2 hours',
  projectId: 1,
  labels,
});

describe('ExitFactsCache: OOMKilled and ExitCode of exited managed containers, inspected once per exit', () => {
  it('inspects exited managed containers only, once while their FinishedAt stays, again after a new exit', async () => {
    const states = new Map<string, ExitState>([['a', exited('2026-11-27T11:55:00Z', 137, true)]]);
    const cache = new ExitFactsCache(async (id) => states.get(id), () => now);
    const running = { Status: 'running' };
    const list = () => [view('a', states.get('a') as ExitState), view('b', running), view('c', exited('2026-11-27T11:00:00Z', 0, false), {})];
    expect(await cache.of(list())).toEqual(new Map([['a', { oomKilled: true, exitCode: 137 }]]));
    expect(await cache.of(list())).toEqual(new Map([['a', { oomKilled: true, exitCode: 137 }]]));
    expect(cache.inspects).toBe(1);

    // Started again and stopped by hand two minutes ago: the listed Status no longer fits the cached FinishedAt.
    states.set('a', exited('2026-11-27T11:58:00Z', 137, false));
    expect(await cache.of(list())).toEqual(new Map([['a', { oomKilled: false, exitCode: 137 }]]));
    expect(cache.inspects).toBe(2);
  });

  it('forgets a container at an event, and one that is no longer listed as exited', async () => {
    const state = exited('2026-11-27T10:00:00Z', 1, false);
    const cache = new ExitFactsCache(async () => state, () => now);
    await cache.of([view('a', state)]);
    cache.forget('a');
    await cache.of([view('a', state)]);
    expect(cache.inspects).toBe(2);
    await cache.of([view('a', { Status: 'running' })]);
    await cache.of([view('a', state)]);
    expect(cache.inspects).toBe(3);
  });

  it('says nothing of a container that is gone or running by the time it is inspected', async () => {
    const cache = new ExitFactsCache(async (id) => (id === 'up' ? { ...exited('2026-11-27T10:00:00Z', 0, false), Running: true, Status: 'running' } : undefined), () => now);
    const state = exited('2026-11-27T10:00:00Z', 0, false);
    expect((await cache.of([view('gone', state), view('up', state)])).size).toBe(0);
  });
});
