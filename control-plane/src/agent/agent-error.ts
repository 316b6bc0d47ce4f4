import * as grpc from '@grpc/grpc-js';

/** gRPC status names, e.g. 'UNAVAILABLE', 'FAILED_PRECONDITION'. */
export type AgentErrorCode = keyof typeof grpc.status;

/** Codes that mean "the agent did not answer", as opposed to "the agent answered no". */
const unreachableCodes: ReadonlySet<grpc.status> = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);

/**
 * A failed agent call. `unreachable` is true when the agent did not answer (down, network, TLS
 * handshake refused, deadline passed): callers must then treat host state as unknown, never as
 * "stopped" or "gone". Otherwise the agent answered with a refusal (`code`).
 */
export class AgentError extends Error {
  override name = 'AgentError';
  readonly code: AgentErrorCode;
  readonly grpcCode: grpc.status;
  readonly unreachable: boolean;
  /** The agent's own message (gRPC status details), without the method prefix. */
  readonly details: string;

  constructor(grpcCode: grpc.status, details: string, rpc?: string, options?: { cause?: unknown }) {
    const code = (grpc.status[grpcCode] as AgentErrorCode | undefined) ?? 'UNKNOWN';
    super(`${rpc ? `agent ${rpc}: ` : 'agent: '}${code}: ${details}`, options);
    this.code = code;
    this.grpcCode = grpcCode in grpc.status ? grpcCode : grpc.status.UNKNOWN;
    this.details = details;
    this.unreachable = unreachableCodes.has(this.grpcCode);
  }
}

function isServiceError(error: unknown): error is Pick<grpc.ServiceError, 'code' | 'details' | 'message'> {
  return error instanceof Error && typeof (error as Partial<grpc.ServiceError>).code === 'number';
}

/** Maps whatever a gRPC call failed with to an AgentError (errors without a status: UNKNOWN). */
export function toAgentError(error: unknown, rpc?: string): AgentError {
  if (error instanceof AgentError) return error;
  if (isServiceError(error)) {
    const details = error.details || error.message;
    return new AgentError(error.code, details, rpc, { cause: error });
  }
  const details = error instanceof Error ? error.message : String(error);
  return new AgentError(grpc.status.UNKNOWN, details, rpc, { cause: error });
}
