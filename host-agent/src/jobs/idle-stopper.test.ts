import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import { FakeManagedContainers } from '../../../tests/support/fakes/fake-managed-containers.ts';
import { IdleStopper } from './idle-stopper.ts';
import type { ManagedContainer } from '../drivers/docker/managed-containers.ts';
import { SiteActivity } from './site-activity.ts';

const HOUR = 3_600_000;
const AFTER = 24 * HOUR;
const at = (hours: number) => new Date(Date.UTC(2026, 10, 1) + hours * HOUR);

let dir: string;
let clock: Date;
let proxyUp: boolean;

function container(overrides: Partial<ManagedContainer>): ManagedContainer {
  return { id: 'c1', name: 'blog', projectId: 1, domain: 'blog.dev.nl', state: 'running', upstream: '127.0.0.1:1000', createdAt: at(-1000), ...overrides };
}

async function setUp(list: ManagedContainer[]): Promise<{ stopper: IdleStopper; activity: SiteActivity; containers: FakeManagedContainers }> {
  const { activity } = await SiteActivity.load({ file: path.join(dir, 'site-activity.json'), now: () => clock });
  const containers = new FakeManagedContainers(list);
  for (const item of list) containers.started.set(item.id, at(-500));
  const stopper = new IdleStopper({
    containers,
    activity,
    ensureObserving: async () => {
      if (!proxyUp) throw new ProxyUnavailableError('Caddy is down');
    },
    afterMs: AFTER,
    cron: '0 0 1 1 *',
    logger: pino({ level: 'silent' }),
    now: () => clock,
  });
  return { stopper, activity, containers };
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-idle-'));
  clock = at(0);
  proxyUp = true;
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('IdleStopper', () => {
  it('keeps a visited site running and stops it (never removes it) a whole idle time after the last visit', async () => {
    const { stopper, activity, containers } = await setUp([container({})]);
    clock = at(20);
    activity.recordVisit('blog.dev.nl');
    clock = at(43);
    expect((await stopper.check()).stopped).toEqual([]);
    clock = at(44);
    const outcome = await stopper.check();
    expect(outcome.stopped).toEqual(['blog']);
    expect(containers.stopped).toEqual(['c1']);
    expect(containers.removed).toEqual([]);
    expect(stopper.autoStopOf('c1')).toEqual({ reason: 'idle', stoppedAt: at(44), lastActivityAt: at(20), idleAfterMs: AFTER, domain: 'blog.dev.nl' });
  });

  it('counts the container start as activity: a just-started container is never idle', async () => {
    const { stopper, containers } = await setUp([container({})]);
    clock = at(100);
    containers.started.set('c1', at(99));
    expect((await stopper.check()).stopped).toEqual([]);
    clock = at(123);
    expect((await stopper.check()).stopped).toEqual(['blog']);
    expect(stopper.autoStopOf('c1')?.lastActivityAt).toEqual(at(99));
  });

  it('a start or unpause event is activity and clears an earlier auto-stop', async () => {
    const { stopper, containers } = await setUp([container({})]);
    clock = at(30);
    await stopper.check();
    expect(stopper.autoStopOf('c1')).toBeDefined();
    containers.containers[0] = container({ state: 'running' });
    stopper.noteEvent({ action: 'start', containerId: 'c1', domain: 'Blog.dev.nl' });
    expect(stopper.autoStopOf('c1')).toBeUndefined();
    clock = at(53);
    expect((await stopper.check()).stopped).toEqual([]);
    stopper.noteEvent({ action: 'unpause', containerId: 'c1', domain: 'blog.dev.nl' });
    clock = at(76);
    expect((await stopper.check()).stopped).toEqual([]);
    clock = at(78);
    expect((await stopper.check()).stopped).toEqual(['blog']);
  });

  it('leaves paused, stopped and domain-less containers alone', async () => {
    const { stopper, containers } = await setUp([
      container({ id: 'p', name: 'paused', state: 'paused' }),
      container({ id: 'e', name: 'exited', state: 'exited', upstream: null }),
      container({ id: 'n', name: 'nodomain', domain: '' }),
    ]);
    clock = at(1000);
    const outcome = await stopper.check();
    expect(outcome).toEqual({ checked: 0, stopped: [], unobserved: false });
    expect(containers.stopped).toEqual([]);
  });

  it('stops nothing while Caddy does not answer, and that time does not count as idle', async () => {
    const { stopper } = await setUp([container({})]);
    clock = at(10);
    await stopper.check();
    proxyUp = false;
    clock = at(20);
    expect(await stopper.check()).toMatchObject({ unobserved: true, stopped: [] });
    clock = at(30);
    expect(await stopper.check()).toMatchObject({ unobserved: true, stopped: [] });
    proxyUp = true;
    // 34 h since tracking began, 20 of them blind: 14 h idle.
    clock = at(34);
    expect((await stopper.check()).stopped).toEqual([]);
    clock = at(44);
    expect((await stopper.check()).stopped).toEqual(['blog']);
  });

  it('clears the record when the stop fails or the container was not running after all', async () => {
    const { stopper, containers } = await setUp([container({})]);
    containers.stop = async () => {
      throw new Error('engine hiccup');
    };
    clock = at(30);
    expect((await stopper.check()).stopped).toEqual([]);
    expect(stopper.autoStopOf('c1')).toBeUndefined();
    containers.stop = async () => false;
    expect((await stopper.check()).stopped).toEqual([]);
    expect(stopper.autoStopOf('c1')).toBeUndefined();
  });

  it('saves what it knows, so a restarted agent still reports the auto-stop', async () => {
    const first = await setUp([container({})]);
    clock = at(30);
    await first.stopper.check();
    await first.stopper.stop();
    const { activity } = await SiteActivity.load({ file: path.join(dir, 'site-activity.json'), now: () => clock });
    expect(activity.autoStopOf('c1')?.stoppedAt).toEqual(at(30));
  });
});
