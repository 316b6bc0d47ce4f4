/**
 * Calling the real agent's gRPC services straight from a test: the contract-version metadata
 * every call needs, a promise around the 4-argument unary form (with a deadline), and the error
 * of a call that must be refused.
 */
import * as grpc from '@grpc/grpc-js';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';

/** Metadata with the control plane's contract version (the agent refuses calls without it). */
export function contractMetadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

type Unary<Req, Res> = (request: Req, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown;

/** `client.method(request)` as a promise, with the contract metadata and a deadline. */
export function unaryCall<Client, Req, Res>(client: Client, method: Unary<Req, Res>, request: Req, deadlineMs = 30_000): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, request, contractMetadata(), { deadline: new Date(Date.now() + deadlineMs) }, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** The error a call was refused with; throws when it succeeded. */
export async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}
