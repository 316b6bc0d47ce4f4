import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.ts';

describe('backoffDelay', () => {
  const policy = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };

  it('doubles from the initial delay up to the cap', () => {
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((failures) => backoffDelay(failures, policy, noJitter))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000,
    ]);
  });

  it('takes at most the jitter fraction off', () => {
    expect(backoffDelay(3, policy, () => 1)).toBe(1_600);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(1_800);
  });

  it('treats 0 failures like the first one and clamps odd jitter values', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(1, { initialMs: 100, maxMs: 1_000, jitter: 5 }, () => 1)).toBe(0);
    expect(backoffDelay(1, { initialMs: 100, maxMs: 1_000 }, () => 0)).toBe(100);
  });
});
