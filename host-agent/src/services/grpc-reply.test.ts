import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
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
