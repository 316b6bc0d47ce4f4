import { describe, expect, it } from 'vitest';
import { PerUserSlots } from './per-user-slots.ts';

describe('PerUserSlots', () => {
  it('gives each user their own places and takes them back once per release', () => {
    const slots = new PerUserSlots(2);
    const first = slots.take(1);
    const second = slots.take(1);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(slots.take(1)).toBeNull();
    expect(slots.take(2)).toBeTypeOf('function');
    first?.();
    first?.();
    expect(slots.inUse(1)).toBe(1);
    expect(slots.take(1)).toBeTypeOf('function');
    expect(slots.take(1)).toBeNull();
  });
});
