import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { toAgentError } from './agent-error.ts';
import { callMetadata } from './grpc-unary.ts';

/** Options of one server-streaming call. */
export interface StreamCallOptions {
  /** Cancels the call; the iteration then ends quietly (no error). */
  signal?: AbortSignal;
  /** Deadline of the whole stream; none when absent (the stream lives until cancelled). */
  deadlineMs?: number;
  requestId?: string;
}

/** Where stream calls are counted: opened, messages, and how each ended (ok, cancelled or the error code). */
export interface StreamMetrics {
  streamOpened(rpc: string): void;
  streamMessage(rpc: string): void;
  streamEnded(rpc: string, outcome: string): void;
}

export type StreamOpener<Message> = (metadata: grpc.Metadata, options: Partial<grpc.CallOptions>) => grpc.ClientReadableStream<Message>;

/**
 * A server-streaming gRPC call as an async iterable of plain views. The call opens on the first
 * next(); breaking out of a for-await loop, returning the iterator or aborting `signal` cancels
 * it. Failures become AgentError; a cancellation we asked for ends the iteration without one.
 */
export async function* streamCall<Message, View>(
  rpc: string,
  open: StreamOpener<Message>,
  map: (message: Message) => View,
  metadata: grpc.Metadata,
  options: StreamCallOptions,
  logger: Logger,
  metrics?: StreamMetrics,
): AsyncGenerator<View, void, undefined> {
  if (options.signal?.aborted) return;
  const callOptions: Partial<grpc.CallOptions> = options.deadlineMs ? { deadline: new Date(Date.now() + options.deadlineMs) } : {};
  const call = open(metadata, callOptions);
  let cancelledByUs = false;
  const cancel = (): void => {
    cancelledByUs = true;
    call.cancel();
  };
  options.signal?.addEventListener('abort', cancel, { once: true });
  metrics?.streamOpened(rpc);
  let outcome = 'ok';
  let completed = false;
  try {
    for await (const message of call as AsyncIterable<Message>) {
      metrics?.streamMessage(rpc);
      yield map(message);
    }
    completed = true;
  } catch (error) {
    if (cancelledByUs || options.signal?.aborted) {
      outcome = 'cancelled';
      return;
    }
    const agentError = toAgentError(error, rpc);
    outcome = agentError.code;
    logger.debug({ rpc, code: agentError.code, details: agentError.details }, 'agent stream failed');
    throw agentError;
  } finally {
    // A consumer that stops early (break, return) ends the stream from our side.
    if (outcome === 'ok' && !completed) outcome = 'cancelled';
    metrics?.streamEnded(rpc, outcome);
    options.signal?.removeEventListener('abort', cancel);
    // The consumer may have stopped early: do not leave the call open.
    cancelledByUs = true;
    call.cancel();
  }
}

/** Drops the nulls a stream's map gives for messages without content. */
export async function* withoutNulls<View>(source: AsyncIterable<View | null>): AsyncGenerator<View, void, undefined> {
  for await (const item of source) if (item !== null) yield item;
}

/** Opens one server-streaming RPC as an async iterable of views (see streamCall). */
export type StreamCall = <Message, View>(rpc: string, open: StreamOpener<Message>, map: (message: Message) => View, options?: StreamCallOptions) => AsyncIterable<View>;

/** The stream calls of one agent link: each with the contract version, a request id, the link's logger and metrics. */
export function streamCaller(logger: Logger, metrics?: StreamMetrics): StreamCall {
  return (rpc, open, map, options = {}) => streamCall(rpc, open, map, callMetadata(options.requestId), options, logger, metrics);
}
