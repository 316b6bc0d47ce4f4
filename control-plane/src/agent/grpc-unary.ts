import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { toAgentError } from './agent-error.ts';
import type { AgentCallOptions } from './call-options.ts';

/** Metadata key of the request id that follows a request across the gRPC hop. */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

/** Metadata every call carries: the contract version (checked by the agent) and a request id. */
export function callMetadata(requestId: string = randomUUID()): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  metadata.set(REQUEST_ID_METADATA_KEY, requestId);
  return metadata;
}

/** One unary RPC of a generated client, e.g. `(md, opts, cb) => client.getInfo({}, md, opts, cb)`. */
export type UnaryInvoker<Response> = (
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Response) => void,
) => grpc.ClientUnaryCall;

/** Runs one unary RPC: its response, or a rejection with AgentError. */
export type UnaryCall = <Response>(rpc: string, invoke: UnaryInvoker<Response>, callOptions?: AgentCallOptions) => Promise<Response>;

/** Where unary calls are counted and timed (by RPC and outcome: ok or the error code). */
export interface UnaryMetrics {
  observeAgentCall(rpc: string, outcome: string, seconds: number): void;
}

/** The deadlines of one agent link's calls, in ms. */
export interface AgentDeadlines {
  /** Every call without a deadline of its own. */
  call: number;
  /** Calls that change the host: a database and its account, a peer, a container's state, sessions. */
  hostChange: number;
  /** CreateContainer (it may pull the image first). */
  create: number;
  /** A whole PullImage stream. */
  pull: number;
  /** A whole DeployRepository stream (fetch, build, copy, after-update and swap). */
  deploy: number;
}

/**
 * The unary calls of one agent link: each has a deadline (the link's default unless the call
 * sets one) and sends the contract version and a request id; failures become AgentError and
 * are logged at debug level; every call is counted and timed.
 */
export function unaryCaller(options: { logger: Logger; deadlineMs: number; metrics: UnaryMetrics }): UnaryCall {
  const { logger, deadlineMs, metrics } = options;
  return <Response>(rpc: string, invoke: UnaryInvoker<Response>, callOptions: AgentCallOptions = {}): Promise<Response> => {
    const requestId = callOptions.requestId ?? randomUUID();
    const deadline = new Date(Date.now() + (callOptions.deadlineMs ?? deadlineMs));
    const startedAt = performance.now();
    return new Promise((resolve, reject) => {
      invoke(callMetadata(requestId), { deadline }, (error, response) => {
        const seconds = (performance.now() - startedAt) / 1000;
        if (error) {
          const agentError = toAgentError(error, rpc);
          logger.debug({ rpc, requestId, code: agentError.code, details: agentError.details }, 'agent call failed');
          metrics.observeAgentCall(rpc, agentError.code, seconds);
          reject(agentError);
        } else {
          metrics.observeAgentCall(rpc, 'ok', seconds);
          resolve(response);
        }
      });
    });
  };
}
