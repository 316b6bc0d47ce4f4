/**
 * What every fake service shares: the gate each call passes (it records the call, then applies
 * the agent's mode and its per-method switches) and the error shapes grpc-js sends.
 */
import * as grpc from '@grpc/grpc-js';
import type { FakeAgentState } from './state.ts';

export const serviceError = (code: grpc.status, details: string): Partial<grpc.ServiceError> => ({ code, details, message: details });

/** Ends a server stream with an error status (grpc-js turns an 'error' event into the status). */
export function failStream(call: { emit(event: 'error', error: unknown): boolean }, error: Partial<grpc.ServiceError>): void {
  call.emit('error', error);
}

/** The switches the gate reads, at each call: a test flips them between calls. */
export type GateState = Pick<FakeAgentState, 'calls' | 'mode' | 'slowMs' | 'failingMethods' | 'unimplementedMethods'>;

export interface FakeRpc {
  /** The common gate of every call: records it, then applies the mode. Returns an error or null. */
  gate(method: string, request: unknown): Promise<Partial<grpc.ServiceError> | null>;
  /** A unary handler behind the gate; `handle` answers with a response or a service error. */
  unary<Request, Response>(method: string, handle: (request: Request) => Response | Partial<grpc.ServiceError>): grpc.handleUnaryCall<Request, Response>;
}

export function fakeRpc(state: GateState): FakeRpc {
  const gate = async (method: string, request: unknown): Promise<Partial<grpc.ServiceError> | null> => {
    state.calls.push({ method, request });
    if (state.mode === 'unavailable') return serviceError(grpc.status.UNAVAILABLE, 'fake agent: unavailable');
    if (state.mode === 'failing' || state.failingMethods.has(method)) return serviceError(grpc.status.INTERNAL, `fake agent: ${method} failed`);
    if (state.unimplementedMethods.has(method)) return serviceError(grpc.status.UNIMPLEMENTED, `fake agent: ${method} is not implemented`);
    if (state.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, state.slowMs));
    return null;
  };
  return {
    gate,
    unary<Request, Response>(
      method: string,
      handle: (request: Request) => Response | Partial<grpc.ServiceError>,
    ): grpc.handleUnaryCall<Request, Response> {
      return (call, callback) => {
        void gate(method, call.request).then((failure) => {
          if (failure) return callback(failure as grpc.ServiceError, null);
          const result = handle(call.request);
          if (result && typeof result === 'object' && 'code' in result && typeof (result as { code: unknown }).code === 'number') {
            return callback(result as grpc.ServiceError, null);
          }
          callback(null, result as Response);
        });
      };
    },
  };
}
