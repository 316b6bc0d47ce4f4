import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { callLogger } from '../interceptors/logging.ts';

/** A failure as the caller sees it. */
export interface FailureStatus {
  code: grpc.status;
  details: string;
}

/**
 * A service's own error mapping: the status of a failure it knows (the caller's mistake, the
 * host's state), or undefined for an unexpected one, which becomes INTERNAL and is logged.
 */
export type KnownFailures = (error: unknown) => FailureStatus | undefined;

export interface GrpcReplyOptions {
  logger: Logger;
  /** The service's known failures; without it every failure is unexpected. */
  knownFailures?: KnownFailures;
  /** The details of an unexpected failure (the log has the rest); default "<RPC> failed; see the agent log". */
  internalDetails?: (what: string) => string;
  /**
   * Aborted when the agent shuts down: every server stream still open then ends with
   * UNAVAILABLE 'the agent is shutting down' (a graceful shutdown is not held up by streams that
   * never end by themselves, and clients reconnect to the next agent process). Without it a
   * stream runs until its work ends or the client cancels.
   */
  shutdown?: AbortSignal;
}

/** Runs a unary RPC's work (with the call's logger) and answers its response or its failure's status. */
export type UnaryReply = <T>(call: { metadata: grpc.Metadata }, callback: grpc.sendUnaryData<T>, work: (log: Logger) => Promise<T>, what: string) => void;

/**
 * Runs a server stream's work (with a signal and the call's logger): the signal aborts when the
 * client cancels or the agent shuts down; the stream ends when the work resolves and fails with
 * the failure's status when it rejects, unless it was aborted first.
 */
export type StreamReply = <Req, Res>(call: grpc.ServerWritableStream<Req, Res>, work: (signal: AbortSignal, log: Logger) => Promise<void>, what: string) => void;

/** Turns a failure into its status, logging the unexpected ones (for unary replies and streams alike). */
export type FailureReply = (call: { metadata: grpc.Metadata }, error: unknown, what: string) => FailureStatus;

const defaultInternalDetails = (what: string) => `${what} failed; see the agent log`;

/**
 * The one way the agent's services answer: known failures with their service's status,
 * anything else INTERNAL with a generic message and the error in the log under "<RPC> failed".
 */
export function grpcReply(options: GrpcReplyOptions): { reply: UnaryReply; fail: FailureReply; stream: StreamReply } {
  const { logger, knownFailures, internalDetails = defaultInternalDetails, shutdown } = options;
  const fail: FailureReply = (call, error, what) => {
    const known = knownFailures?.(error);
    if (known) return { code: known.code, details: known.details };
    callLogger(logger, call).error({ err: error }, `${what} failed`);
    return { code: grpc.status.INTERNAL, details: internalDetails(what) };
  };
  const reply: UnaryReply = <T>(call: { metadata: grpc.Metadata }, callback: grpc.sendUnaryData<T>, work: (log: Logger) => Promise<T>, what: string) => {
    // Synchronous throws (argument checks) become rejections too.
    new Promise<T>((resolve) => resolve(work(callLogger(logger, call)))).then(
      (response) => callback(null, response),
      (error: unknown) => callback(fail(call, error, what)),
    );
  };
  const stream: StreamReply = (call, work, what) => {
    const controller = new AbortController();
    call.once('cancelled', () => controller.abort());
    const endForShutdown = () => {
      if (controller.signal.aborted) return;
      controller.abort();
      call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'the agent is shutting down' });
    };
    if (shutdown?.aborted) return endForShutdown();
    shutdown?.addEventListener('abort', endForShutdown, { once: true });
    // Synchronous throws become rejections too.
    new Promise<void>((resolve) => resolve(work(controller.signal, callLogger(logger, call))))
      .then(
        () => {
          if (!controller.signal.aborted) call.end();
        },
        (error: unknown) => {
          if (!controller.signal.aborted) call.emit('error', fail(call, error, what));
        },
      )
      .finally(() => shutdown?.removeEventListener('abort', endForShutdown));
  };
  return { reply, fail, stream };
}
