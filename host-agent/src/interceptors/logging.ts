import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ThrottledWarnings } from '@devplein/server-kit/throttled-warnings';
import { clientCommonName } from './auth.ts';
import { metadataString, REQUEST_ID_METADATA_KEY } from './metadata.ts';

/** Status codes that say "the caller asked for something wrong", logged as warnings. */
const callerErrors = new Set<grpc.status>([
  grpc.status.CANCELLED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.ALREADY_EXISTS,
  grpc.status.PERMISSION_DENIED,
  grpc.status.UNAUTHENTICATED,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.OUT_OF_RANGE,
  grpc.status.UNIMPLEMENTED,
  grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.DEADLINE_EXCEEDED,
]);

/** Frequent, boring calls (the control plane's health monitor) are logged at debug level. */
const quietMethods = /^\/devplein\.agent\.v1\.InfoService\//;

/** A request id taken from the caller when it is sane, else a new one. */
export function requestIdFrom(metadata: grpc.Metadata): string {
  const given = metadataString(metadata, REQUEST_ID_METADATA_KEY)?.trim();
  return given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** A child logger for a handler, carrying the call's request id (set by loggingInterceptor). */
export function callLogger(logger: Logger, call: { metadata: grpc.Metadata }): Logger {
  return logger.child({ requestId: metadataString(call.metadata, REQUEST_ID_METADATA_KEY) });
}

/**
 * Logs one line per call when it ends (method, status, duration, client CN, request id) and
 * echoes the request id in the response headers. Must be the innermost interceptor (first in
 * the server's list): it then sees the metadata before the auth and version checks and also
 * logs the calls they refuse.
 *
 * UNAVAILABLE is a part of this host that does not answer (the Docker engine, MariaDB, the VPN
 * interface): every call that needs it fails alike until it is back, so that is one warning per
 * part, said again at most once a minute, and the calls themselves are logged at debug level.
 */
export function loggingInterceptor(logger: Logger): grpc.ServerInterceptor {
  const missingParts = new ThrottledWarnings(logger);
  return (method, call) => {
    const startedAt = performance.now();
    let requestId: string | undefined;
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            requestId = requestIdFrom(metadata);
            metadata.set(REQUEST_ID_METADATA_KEY, requestId);
            nextMetadata(metadata);
          },
        });
      },
      sendMetadata: (metadata, nextMetadata) => {
        if (requestId) metadata.set(REQUEST_ID_METADATA_KEY, requestId);
        nextMetadata(metadata);
      },
      sendStatus: (status, nextStatus) => {
        const code = status.code ?? grpc.status.UNKNOWN;
        const fields = {
          method: method.path,
          code: grpc.status[code] ?? String(code),
          durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
          requestId,
          client: clientCommonName(call),
          peer: call.getPeer(),
          ...(code === grpc.status.OK ? {} : { details: status.details }),
        };
        if (code === grpc.status.OK) {
          if (quietMethods.test(method.path)) logger.debug(fields, 'call');
          else logger.info(fields, 'call');
        } else if (callerErrors.has(code)) {
          logger.warn(fields, 'call refused');
        } else if (code === grpc.status.UNAVAILABLE) {
          logger.debug(fields, 'call failed');
          missingParts.warn(status.details ?? '', { method: method.path, details: status.details }, `calls answer UNAVAILABLE: ${status.details}`);
        } else {
          logger.error(fields, 'call failed');
        }
        nextStatus(status);
      },
    });
  };
}
