import pino from 'pino';
import type { Knex } from 'knex';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ContainerEventView } from '../agent/container-views.ts';
import type { CaptureResult, ThumbnailCapturer } from '../services/thumbnail-capturer.ts';
import { startThumbnailScheduler, type ThumbnailScheduler } from './thumbnail-scheduler.ts';

const event = (projectId: number, action: string, state = 'running'): ContainerEventView => ({
  containerId: 'c',
  containerName: `p${projectId}`,
  projectId,
  action,
  state,
  status: '',
  time: null,
  attributes: {},
  autoStop: null,
});

describe('startThumbnailScheduler: a capture after a container starts', () => {
  let captured: number[];
  let scheduler: ThumbnailScheduler;

  beforeEach(() => {
    vi.useFakeTimers();
    captured = [];
    const capturer = {
      capture: (projectId: number): Promise<CaptureResult> => {
        captured.push(projectId);
        return Promise.resolve({ projectId, ok: true, outcome: 'captured', error: null });
      },
    } as unknown as ThumbnailCapturer;
    scheduler = startThumbnailScheduler({
      knex: {} as Knex,
      capturer,
      logger: pino({ level: 'silent' }),
      cronExpression: 'off',
      afterStartMs: 20_000,
    });
  });

  afterEach(async () => {
    await scheduler.stop();
    vi.useRealTimers();
  });

  it('waits the delay, once per project even after several starts, and ignores other events', () => {
    scheduler.onContainerEvent(event(1, 'start'));
    scheduler.onContainerEvent(event(2, 'stop', 'exited'));
    scheduler.onContainerEvent(event(0, 'start'));
    scheduler.onContainerEvent(event(3, 'exec_start: sh', 'running'));
    vi.advanceTimersByTime(10_000);
    scheduler.onContainerEvent(event(1, 'restart'));
    scheduler.onContainerEvent(event(4, 'unpause'));
    expect(scheduler.waitingAfterStart).toBe(2);
    vi.advanceTimersByTime(19_999);
    expect(captured).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(captured.sort()).toEqual([1, 4]);
    expect(scheduler.waitingAfterStart).toBe(0);
  });

  it('a start whose state the agent could not read still counts; stop() drops what waits', async () => {
    scheduler.onContainerEvent(event(5, 'start', ''));
    expect(scheduler.waitingAfterStart).toBe(1);
    await scheduler.stop();
    expect(scheduler.waitingAfterStart).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(captured).toEqual([]);
  });
});
