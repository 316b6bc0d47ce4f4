import { describe, expect, it } from 'vitest';
import { createTriggerQueue, MAX_BATCH, type RealtimeEvent, type RealtimeTrigger } from './trigger-queue.ts';

/** A realtime server fake that records each request and answers only when the test says so. */
function heldRealtime() {
  const requests: Array<{ kind: 'trigger' | 'batch'; events: RealtimeEvent[]; answer: () => void; fail: (error: Error) => void }> = [];
  const request = (kind: 'trigger' | 'batch', events: RealtimeEvent[]): Promise<unknown> =>
    new Promise((resolve, reject) => requests.push({ kind, events, answer: () => resolve({}), fail: reject }));
  const realtime: RealtimeTrigger = {
    trigger: (channel, name, data) => request('trigger', [{ channel, name, data }]),
    triggerBatch: (batch) => request('batch', batch),
  };
  /** The messages of each request so far, e.g. [['a'], ['b', 'c']]. */
  const sent = () => requests.map((each) => each.events.map((event) => (event.data as { message: string }).message));
  return { realtime, requests, sent };
}

const event = (message: string) => ['private-container.blog', 'DockerEventSent', { message }] as const;

describe('trigger queue', () => {
  it('sends a lone event at once, on its own (no timer, no batch)', async () => {
    const { realtime, requests, sent } = heldRealtime();
    const queue = createTriggerQueue(realtime);
    const done = queue.trigger(...event('running'));
    // Sent before trigger() returned: nothing waits for a timer or a tick.
    expect(requests.map((each) => each.kind)).toEqual(['trigger']);
    requests[0]!.answer();
    await done;
    // Idle again: the next lone event goes at once too.
    const next = queue.trigger(...event('paused'));
    expect(sent()).toEqual([['running'], ['paused']]);
    expect(requests[1]!.kind).toBe('trigger');
    requests[1]!.answer();
    await next;
  });

  it('sends the events given while a request is in flight together in one triggerBatch once it answered, in order', async () => {
    const { realtime, requests, sent } = heldRealtime();
    const queue = createTriggerQueue(realtime);
    const first = queue.trigger(...event('a'));
    const queued = ['b', 'c', 'd'].map((message) => queue.trigger(...event(message)));
    expect(sent()).toEqual([['a']]);
    requests[0]!.answer();
    await first;
    expect(requests.map((each) => each.kind)).toEqual(['trigger', 'batch']);
    expect(sent()).toEqual([['a'], ['b', 'c', 'd']]);
    expect(requests[1]!.events[0]).toEqual({ channel: 'private-container.blog', name: 'DockerEventSent', data: { message: 'b' } });
    requests[1]!.answer();
    await Promise.all(queued);
  });

  it(`puts at most ${MAX_BATCH} events in one batch (the Pusher protocol's limit)`, async () => {
    const { realtime, requests, sent } = heldRealtime();
    const queue = createTriggerQueue(realtime);
    const messages = Array.from({ length: 1 + MAX_BATCH + 3 }, (_, index) => String(index));
    const all = messages.map((message) => queue.trigger(...event(message)));
    requests[0]!.answer();
    await all[0];
    requests[1]!.answer();
    await all[MAX_BATCH];
    expect(sent()).toEqual([messages.slice(0, 1), messages.slice(1, 1 + MAX_BATCH), messages.slice(1 + MAX_BATCH)]);
    expect(requests.map((each) => each.kind)).toEqual(['trigger', 'batch', 'batch']);
    requests[2]!.answer();
    await Promise.all(all);
  });

  it('rejects the events of a failed request and goes on with those queued after it', async () => {
    const { realtime, requests, sent } = heldRealtime();
    const queue = createTriggerQueue(realtime);
    const first = queue.trigger(...event('a'));
    const second = queue.trigger(...event('b'));
    const third = queue.trigger(...event('c'));
    requests[0]!.fail(new Error('soketi down'));
    await expect(first).rejects.toThrow('soketi down');
    requests[1]!.fail(new Error('still down'));
    await expect(Promise.all([second, third])).rejects.toThrow('still down');
    await expect(second).rejects.toThrow('still down');
    await expect(third).rejects.toThrow('still down');
    const later = queue.trigger(...event('d'));
    expect(sent()).toEqual([['a'], ['b', 'c'], ['d']]);
    requests[2]!.answer();
    await later;
  });
});
