import { describe, expect, it } from 'vitest';
import { InvalidatingCache } from './invalidating-cache.ts';

const make = (options: { maxEntries?: number; ttlMs?: number; clock?: () => number } = {}) =>
  new InvalidatingCache<number, string>({ maxEntries: options.maxEntries ?? 10, ttlMs: options.ttlMs ?? 60_000, clock: options.clock });

describe('InvalidatingCache', () => {
  it('keeps what was stored until the key is invalidated', () => {
    const cache = make();
    expect(cache.store(cache.ticket(1), 'een')).toBe(true);
    expect(cache.get(1)).toBe('een');
    cache.invalidate(1);
    expect(cache.get(1)).toBeUndefined();
  });

  it('refuses a value read before an invalidation of its key (the read raced the write)', () => {
    const cache = make();
    const staleRead = cache.ticket(1);
    cache.invalidate(1);
    expect(cache.store(staleRead, 'oud')).toBe(false);
    expect(cache.get(1)).toBeUndefined();
    // A read that starts after the invalidation stores.
    expect(cache.store(cache.ticket(1), 'nieuw')).toBe(true);
    expect(cache.get(1)).toBe('nieuw');
  });

  it('lets a read of another key store despite an invalidation in between', () => {
    const cache = make();
    const read = cache.ticket(2);
    cache.invalidate(1);
    expect(cache.store(read, 'twee')).toBe(true);
  });

  it('refuses every read that started before clear()', () => {
    const cache = make();
    const read = cache.ticket(3);
    cache.clear();
    expect(cache.store(read, 'oud')).toBe(false);
  });

  it('stays safe when the record of invalidations is full: forgotten keys count as just invalidated', () => {
    const cache = make({ maxEntries: 2 });
    const staleRead = cache.ticket(1);
    cache.invalidate(1);
    cache.invalidate(2);
    cache.invalidate(3); // 1 is forgotten now
    expect(cache.store(staleRead, 'oud')).toBe(false);
  });

  it('drops the least recently used entry beyond maxEntries', () => {
    const cache = make({ maxEntries: 2 });
    cache.store(cache.ticket(1), 'een');
    cache.store(cache.ticket(2), 'twee');
    expect(cache.get(1)).toBe('een'); // 1 is now more recent than 2
    cache.store(cache.ticket(3), 'drie');
    expect(cache.get(2)).toBeUndefined();
    expect(cache.get(1)).toBe('een');
    expect(cache.get(3)).toBe('drie');
    expect(cache.size).toBe(2);
  });

  it('forgets an entry after the TTL', () => {
    let now = 1_000;
    const cache = make({ ttlMs: 100, clock: () => now });
    cache.store(cache.ticket(1), 'een');
    now += 99;
    expect(cache.get(1)).toBe('een');
    now += 1;
    expect(cache.get(1)).toBeUndefined();
  });

  it('keeps the total weight within maxWeight, dropping the least recently used first', () => {
    const cache = new InvalidatingCache<number, string>({ maxEntries: 10, ttlMs: 60_000, maxWeight: 10, weigh: (value) => value.length });
    cache.store(cache.ticket(1), 'vier');
    cache.store(cache.ticket(2), 'drie');
    expect(cache.get(1)).toBe('vier');
    // 4 + 4 + 5 > 10: key 2, used least recently, goes.
    cache.store(cache.ticket(3), 'zeven');
    expect([cache.get(1), cache.get(2), cache.get(3)]).toEqual(['vier', undefined, 'zeven']);
    expect(cache.weight).toBe(9);
    // Replacing, invalidating and clearing keep the count right.
    cache.store(cache.ticket(1), 'een');
    expect(cache.weight).toBe(8);
    cache.invalidate(3);
    expect(cache.weight).toBe(3);
    // A value heavier than the whole budget is not kept, and pushes nothing out.
    expect(cache.store(cache.ticket(4), 'veel te zwaar')).toBe(false);
    expect(cache.get(1)).toBe('een');
    cache.clear();
    expect(cache.weight).toBe(0);
  });
});
