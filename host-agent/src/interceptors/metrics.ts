import * as grpc from '@grpc/grpc-js';
import type { AgentMetrics } from '../metrics/metrics.ts';

/**
 * Counts and times every call by method and status code (capture outcomes show up as
 * ScreenshotService/Capture by code). Put it first in the server's list, beside the logging
 * interceptor, so calls the auth and version checks refuse are counted too.
 */
export function metricsInterceptor(metrics: Pick<AgentMetrics, 'observeCall'>): grpc.ServerInterceptor {
  return (method, call) => {
    const startedAt = performance.now();
    return new grpc.ServerInterceptingCall(call, {
      sendStatus: (status, nextStatus) => {
        metrics.observeCall(method.path, status.code ?? grpc.status.UNKNOWN, (performance.now() - startedAt) / 1000);
        nextStatus(status);
      },
    });
  };
}
