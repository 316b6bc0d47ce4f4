import { describe, expect, it } from 'vitest';
import { IdentityCache } from './identity-cache.ts';
import type { CurrentUser } from '../queries/current-user.ts';
import type { StoredThumbnail } from '../queries/thumbnails.ts';

const user = (id: number, name: string): CurrentUser => ({
  id,
  name,
  name_slug: name.toLowerCase(),
  email: `${name.toLowerCase()}@devplein.test`,
  email_verified_at: null,
  disabled_at: null,
  admin: false,
  developer: false,
  group: null,
  teams: [{ id: 1, name: 'Team' }],
});

/** A loader that counts its calls and answers what `current` holds. */
function source<T>(initial: T) {
  const state = { current: initial, calls: 0 };
  return { state, load: () => { state.calls += 1; return Promise.resolve(state.current); } };
}

describe('IdentityCache', () => {
  it('reads through without caching until it is listening for notices', async () => {
    const cache = new IdentityCache();
    const { state, load } = source<CurrentUser | null>(user(1, 'Ada'));
    await cache.user(1, load);
    await cache.user(1, load);
    expect(state.calls).toBe(2);
    cache.setListening(true);
    await cache.user(1, load);
    await cache.user(1, load);
    expect(state.calls).toBe(3);
  });

  it('applies each kind of notice to what it names', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const users = source<CurrentUser | null>(user(1, 'Ada'));
    const sessions = source({ data: { userId: 1 }, expiresAt: Number.MAX_SAFE_INTEGER });
    const levels = source([{ level_category_id: 1, number: 1, status: 'open' as const }]);
    const categories = source([{ id: 1, title: 'PHP', number: 3, icons: false }]);
    const readAll = () =>
      Promise.all([cache.user(1, users.load), cache.session('s1', sessions.load), cache.levelStatuses(1, levels.load), cache.categories(categories.load)]);
    await readAll();
    await readAll();
    const calls = () => [users.state.calls, sessions.state.calls, levels.state.calls, categories.state.calls];
    expect(calls()).toEqual([1, 1, 1, 1]);

    cache.applyNotice('u:2');
    cache.applyNotice('s:s2');
    cache.applyNotice('l:2');
    await readAll();
    expect(calls()).toEqual([1, 1, 1, 1]);

    cache.applyNotice('u:1');
    await readAll();
    expect(calls()).toEqual([2, 1, 1, 1]);
    cache.applyNotice('u:*');
    cache.applyNotice('s:s1');
    await readAll();
    expect(calls()).toEqual([3, 2, 1, 1]);
    cache.applyNotice('l:1');
    cache.applyNotice('c');
    await readAll();
    expect(calls()).toEqual([3, 2, 2, 2]);
    cache.applyNotice('*');
    await readAll();
    expect(calls()).toEqual([4, 3, 3, 3]);
  });

  it('does not keep a user read that a notice overtook', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    let release: (value: CurrentUser) => void = () => undefined;
    const slowRead = cache.user(1, () => new Promise<CurrentUser>((resolve) => (release = resolve)));
    cache.userChanged(1); // the write committed while the read was on its way
    release(user(1, 'Oud'));
    expect((await slowRead)?.name).toBe('Oud');
    const fresh = await cache.user(1, () => Promise.resolve(user(1, 'Nieuw')));
    expect(fresh?.name).toBe('Nieuw');
  });

  it('forgets everything when it stops listening, and caches nothing meanwhile', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const { state, load } = source<CurrentUser | null>(user(1, 'Ada'));
    await cache.user(1, load);
    cache.setListening(false);
    await cache.user(1, load);
    await cache.user(1, load);
    expect(state.calls).toBe(3);
  });

  it('hands out frozen users, so no request can change another request’s copy', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const cached = await cache.user(1, () => Promise.resolve(user(1, 'Ada')));
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(cached?.teams)).toBe(true);
  });
});

describe('IdentityCache.siteWall', () => {
  /** A load that resolves when the test says so, counting its calls. */
  function controlledLoads() {
    const pending: Array<(value: string) => void> = [];
    let calls = 0;
    const load = () => {
      calls += 1;
      return new Promise<string>((resolve) => pending.push(resolve));
    };
    return { load, pending, calls: () => calls };
  }

  it('shares one load between concurrent reads and keeps its value until a notice', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const loads = controlledLoads();
    const first = cache.siteWall(loads.load);
    const second = cache.siteWall(loads.load);
    loads.pending[0]!('v1');
    expect(await Promise.all([first, second])).toEqual(['v1', 'v1']);
    expect(await cache.siteWall(loads.load)).toBe('v1');
    expect(loads.calls()).toBe(1);
    cache.applyNotice('w');
    const third = cache.siteWall(loads.load);
    loads.pending[1]!('v2');
    expect(await third).toBe('v2');
    // A member's name or cohort is on the wall too.
    cache.applyNotice('u:7');
    const fourth = cache.siteWall(loads.load);
    loads.pending[2]!('v3');
    expect(await fourth).toBe('v3');
  });

  it('never lets a read after a change join or keep a load that began before it', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const loads = controlledLoads();
    const before = cache.siteWall(loads.load);
    cache.sitesChanged();
    const after = cache.siteWall(loads.load);
    expect(loads.calls()).toBe(2);
    loads.pending[1]!('new');
    loads.pending[0]!('old');
    expect(await before).toBe('old');
    expect(await after).toBe('new');
    expect(await cache.siteWall(loads.load)).toBe('new');
    expect(loads.calls()).toBe(2);
  });

  it('loads every time while no notices arrive', async () => {
    const cache = new IdentityCache();
    let calls = 0;
    const load = async () => `v${(calls += 1)}`;
    expect(await cache.siteWall(load)).toBe('v1');
    expect(await cache.siteWall(load)).toBe('v2');
  });
});

describe('IdentityCache, concurrent misses', () => {
  it('shares one load between concurrent misses of every kind (a class opening the wall at once)', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const users = source<CurrentUser | null>(user(1, 'Ada'));
    const thumbnails = source<StoredThumbnail | null>(null);
    const sessions = source({ data: { userId: 1 }, expiresAt: Number.MAX_SAFE_INTEGER });
    const categories = source([{ id: 1, title: 'PHP', number: 3, icons: false }]);
    const twice = <T>(read: () => Promise<T>) => Promise.all([read(), read()]);
    await Promise.all([
      twice(() => cache.user(1, users.load)),
      twice(() => cache.thumbnail('site', thumbnails.load)),
      twice(() => cache.session('s1', sessions.load)),
      twice(() => cache.categories(categories.load)),
    ]);
    expect([users.state.calls, thumbnails.state.calls, sessions.state.calls, categories.state.calls]).toEqual([1, 1, 1, 1]);
  });

  it('never lets a read after a change of its key join a load that began before it; other keys do not matter', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    const pending: Array<(value: StoredThumbnail | null) => void> = [];
    let calls = 0;
    const load = () => {
      calls += 1;
      return new Promise<StoredThumbnail | null>((resolve) => pending.push(resolve));
    };
    const thumbnail = (name: string, at: number): StoredThumbnail => ({ png: Buffer.from(name), at } as unknown as StoredThumbnail);

    const before = cache.thumbnail('site', load);
    cache.applyNotice('u:5'); // not a thumbnail: a read of 'site' may still join
    const joined = cache.thumbnail('site', load);
    expect(calls).toBe(1);
    cache.applyNotice('w'); // a thumbnail changed: a read from now on loads anew
    const after = cache.thumbnail('site', load);
    expect(calls).toBe(2);
    pending[1]!(thumbnail('site', 2));
    pending[0]!(thumbnail('site', 1));
    expect(await before).toEqual(thumbnail('site', 1));
    expect(await joined).toEqual(thumbnail('site', 1));
    expect(await after).toEqual(thumbnail('site', 2));
    expect(await cache.thumbnail('site', load)).toEqual(thumbnail('site', 2));
    expect(calls).toBe(2);
  });

  it('gives a failed load’s error to every read that joined it, and loads again next time', async () => {
    const cache = new IdentityCache();
    cache.setListening(true);
    let calls = 0;
    const failing = () => {
      calls += 1;
      return Promise.reject(new Error('database weg'));
    };
    const reads = [cache.user(1, failing), cache.user(1, failing)];
    for (const read of reads) await expect(read).rejects.toThrow('database weg');
    expect(calls).toBe(1);
    await expect(cache.user(1, () => Promise.resolve(user(1, 'Ada')))).resolves.toMatchObject({ name: 'Ada' });
  });
});
