import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SiteActivity } from './site-activity.ts';

const HOUR = 3_600_000;
let dir: string;
let file: string;
let clock: Date;
const now = () => clock;
const at = (hours: number) => new Date(Date.UTC(2026, 10, 1) + hours * HOUR);

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-activity-'));
  file = path.join(dir, 'agent', 'site-activity.json');
  clock = at(0);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SiteActivity', () => {
  it('counts idle time from the last visit, and nothing from before it started watching', async () => {
    const { activity, load } = await SiteActivity.load({ file, now });
    expect(load).toBe('new');
    clock = at(5);
    // Never seen: idle only since the store began (enabling the feature stops nothing at once).
    expect(activity.idleMs(undefined)).toBe(5 * HOUR);
    expect(activity.idleMs(at(-100))).toBe(5 * HOUR);
    activity.recordVisit('blog.dev.nl');
    clock = at(8);
    expect(activity.lastActivityOf('BLOG.dev.nl')).toEqual(at(5));
    expect(activity.idleMs(activity.lastActivityOf('blog.dev.nl'))).toBe(3 * HOUR);
  });

  it('keeps last activity and auto-stops across a restart, and does not count the time it was down', async () => {
    const first = (await SiteActivity.load({ file, now })).activity;
    clock = at(1);
    first.recordVisit('blog.dev.nl');
    first.markAutoStop('c1', { reason: 'idle', stoppedAt: at(1), lastActivityAt: at(0), idleAfterMs: HOUR, domain: 'old.dev.nl' });
    clock = at(2);
    await first.save();

    // Down from 2 h to 10 h, then started again.
    clock = at(10);
    const { activity: second, load } = await SiteActivity.load({ file, now });
    expect(load).toBe('loaded');
    expect(second.lastActivityOf('blog.dev.nl')).toEqual(at(1));
    expect(second.autoStopOf('c1')).toEqual({ reason: 'idle', stoppedAt: at(1), lastActivityAt: at(0), idleAfterMs: HOUR, domain: 'old.dev.nl' });
    clock = at(12);
    // 11 h since the visit, 8 of them unobserved.
    expect(second.idleMs(second.lastActivityOf('blog.dev.nl'))).toBe(3 * HOUR);
    // A visit after the outage counts normally.
    expect(second.idleMs(at(11))).toBe(HOUR);
  });

  it('merges overlapping unobserved stretches and subtracts them once', async () => {
    const { activity } = await SiteActivity.load({ file, now });
    activity.addUnobserved(at(1), at(3));
    activity.addUnobserved(at(2), at(4));
    activity.addUnobserved(at(6), at(5));
    clock = at(10);
    expect(activity.idleMs(at(0))).toBe(7 * HOUR);
  });

  it('starts over, watching from now, when the file is broken', async () => {
    await (await SiteActivity.load({ file, now })).activity.save();
    await writeFile(file, '{"version":1,"trackingSince":"yesterday"}');
    clock = at(3);
    const { activity, load, problem } = await SiteActivity.load({ file, now });
    expect(load).toBe('unreadable');
    expect(problem).toBeTruthy();
    clock = at(4);
    expect(activity.idleMs(undefined)).toBe(HOUR);
  });

  it('forgets domains and auto-stops of containers that are gone, and caps unknown hosts', async () => {
    const { activity } = await SiteActivity.load({ file, now, maxHosts: 2 });
    activity.recordVisit('a.dev.nl');
    activity.recordVisit('b.dev.nl');
    activity.recordVisit('random-host.example');
    expect(activity.lastActivityOf('random-host.example')).toBeUndefined();
    activity.markAutoStop('gone', { reason: 'idle', stoppedAt: at(0), lastActivityAt: at(0), idleAfterMs: HOUR, domain: 'a.dev.nl' });
    activity.retain(new Set(['b.dev.nl']), new Set(['other']));
    expect(activity.lastActivityOf('a.dev.nl')).toBeUndefined();
    expect(activity.lastActivityOf('b.dev.nl')).toEqual(at(0));
    expect(activity.autoStopOf('gone')).toBeUndefined();
    await activity.save();
    const saved = JSON.parse(await readFile(file, 'utf8')) as { lastActivity: Record<string, string> };
    expect(Object.keys(saved.lastActivity)).toEqual(['b.dev.nl']);
  });
});
