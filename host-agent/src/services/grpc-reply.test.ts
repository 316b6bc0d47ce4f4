import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { grpcReply } from './grpc-reply.ts';

class KnownError extends Error {}

/** The reply's answer to one call: the error status, or the response. */
function answer<T>(reply: ReturnType<typeof grpcReply>['reply'], work: () => Promise<T>): Promise<{ error: unknown; response: T | undefined }> {
  return new Promise((resolve) => {
    reply<T>({ metadata: new grpc.Metadata() }, (error, response) => resolve({ error, response: response ?? undefined }), work, 'DoThing');
  });
}

describe('grpcReply', () => {
  const logger = pino({ level: 'silent' });
  const { reply } = grpcReply({ logger, knownFailures: (error) => (error instanceof KnownError ? { code: grpc.status.NOT_FOUND, details: error.message } : undefined) });

  it('answers the response of the work', async () => {
    expect(await answer(reply, async () => ({ ok: true }))).toEqual({ error: null, response: { ok: true } });
  });

  it("answers a known failure with the service's status", async () => {
    expect((await answer(reply, () => Promise.reject(new KnownError('no such thing')))).error).toEqual({ code: grpc.status.NOT_FOUND, details: 'no such thing' });
  });

  it('answers anything else INTERNAL without its details, synchronous throws too', async () => {
    const internal = { code: grpc.status.INTERNAL, details: 'DoThing failed; see the agent log' };
    expect((await answer(reply, () => Promise.reject(new Error('secret internals')))).error).toEqual(internal);
    expect(
      (
        await answer(reply, () => {
          throw new Error('secret internals');
        })
      ).error,
    ).toEqual(internal);
  });

  it('takes a service-specific message for unexpected failures', async () => {
    const custom = grpcReply({ logger, internalDetails: () => 'could not do the thing' });
    expect((await answer(custom.reply, () => Promise.reject(new KnownError('x')))).error).toEqual({ code: grpc.status.INTERNAL, details: 'could not do the thing' });
  });
});

/** A server stream as the runner sees it: what it ended with, written items, and a way to cancel. */
function fakeStream() {
  const events = new EventEmitter();
  const ended: { how: 'end' | 'error' | null; status?: unknown } = { how: null };
  const call = Object.assign(events, {
    metadata: new grpc.Metadata(),
    end: () => void (ended.how ??= 'end'),
    write: () => true,
  });
  events.on('error', (status: unknown) => {
    if (ended.how === null) Object.assign(ended, { how: 'error', status });
  });
  return { call: call as unknown as grpc.ServerWritableStream<unknown, unknown>, ended, cancel: () => events.emit('cancelled') };
}

describe('grpcReply stream', () => {
  const logger = pino({ level: 'silent' });
  const known = (error: unknown) => (error instanceof KnownError ? { code: grpc.status.NOT_FOUND, details: error.message } : undefined);

  it('ends the stream when the work resolves and fails it with the status when it rejects', async () => {
    const { stream } = grpcReply({ logger, knownFailures: known });
    const done = fakeStream();
    stream(done.call, async () => undefined, 'Watch');
    const failed = fakeStream();
    stream(failed.call, () => Promise.reject(new KnownError('gone')), 'Watch');
    await vi.waitFor(() => expect([done.ended.how, failed.ended.how]).toEqual(['end', 'error']));
    expect(failed.ended.status).toEqual({ code: grpc.status.NOT_FOUND, details: 'gone' });
  });

  it('aborts the work when the client cancels, and then neither ends nor fails the stream', async () => {
    const { stream } = grpcReply({ logger });
    const { call, ended, cancel } = fakeStream();
    let seen: AbortSignal | undefined;
    stream(call, (signal) => ((seen = signal), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))), 'Watch');
    cancel();
    await vi.waitFor(() => expect(seen?.aborted).toBe(true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended.how).toBeNull();
  });

  it('ends open streams with UNAVAILABLE at shutdown, and one opened after it at once', async () => {
    const shutdown = new AbortController();
    const { stream } = grpcReply({ logger, shutdown: shutdown.signal });
    const open = fakeStream();
    let aborted = false;
    stream(open.call, (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve()))), 'Watch');
    shutdown.abort();
    const late = fakeStream();
    let ran = false;
    stream(late.call, async () => void (ran = true), 'Watch');
    const unavailable = { code: grpc.status.UNAVAILABLE, details: 'the agent is shutting down' };
    await vi.waitFor(() => expect([open.ended.status, late.ended.status]).toEqual([unavailable, unavailable]));
    expect(aborted).toBe(true);
    expect(ran).toBe(false);
  });
});
