export type { StreamCallOptions } from './grpc-stream.ts';

/** Per-call options of unary calls. */
export interface AgentCallOptions {
  /** Request id sent as `x-request-id` (a new one when absent), so both logs show one id. */
  requestId?: string;
  deadlineMs?: number;
}
