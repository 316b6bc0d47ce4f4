import * as grpc from '@grpc/grpc-js';
import { DockerError, type DockerErrorKind, isEngineUnreachable } from '../drivers/docker/docker-errors.ts';
import type { FailureStatus } from './grpc-reply.ts';

const statusOfKind: Record<DockerErrorKind, grpc.status> = {
  'not-found': grpc.status.NOT_FOUND,
  'invalid-argument': grpc.status.INVALID_ARGUMENT,
  'failed-precondition': grpc.status.FAILED_PRECONDITION,
  unavailable: grpc.status.UNAVAILABLE,
  'permission-denied': grpc.status.PERMISSION_DENIED,
};

/** Docker failures the caller may see as they are (a DockerError, the engine away); undefined for the rest. */
export function dockerFailure(error: unknown): FailureStatus | undefined {
  if (error instanceof DockerError) return { code: statusOfKind[error.kind], details: error.message };
  if (isEngineUnreachable(error)) return { code: grpc.status.UNAVAILABLE, details: 'the Docker engine does not answer' };
  return undefined;
}

