import { describe, expect, it } from 'vitest';
import { SlotQueue } from './slot-queue.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SlotQueue', () => {
  it('hands out at most size slots and serves waiters in order', async () => {
    const queue = new SlotQueue(2);
    const first = await queue.acquire();
    const second = await queue.acquire();
    const order: string[] = [];
    const third = queue.acquire().then((release) => (order.push('third'), release));
    const fourth = queue.acquire().then((release) => (order.push('fourth'), release));
    await tick();
    expect(queue.inUse).toBe(2);
    expect(queue.queued).toBe(2);
    expect(order).toEqual([]);
    first();
    first();
    await tick();
    expect(order).toEqual(['third']);
    second();
    await tick();
    expect(order).toEqual(['third', 'fourth']);
    (await third)();
    (await fourth)();
    expect(queue.inUse).toBe(0);
  });

  it('drops a waiter whose signal aborts', async () => {
    const queue = new SlotQueue(1);
    const release = await queue.acquire();
    const controller = new AbortController();
    const waiting = queue.acquire(controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    expect(queue.queued).toBe(0);
    release();
    expect(queue.inUse).toBe(0);
    await expect(queue.acquire(controller.signal)).rejects.toThrow('caller gave up');
  });
});
