/**
 * The fake ScreenshotService: captures of `{label}.{siteDomain}` only, answered per domain as
 * `screenshots` scripts them (else CAPTURED with fakePng(domain)), after the script's or the
 * agent's delay; it counts the captures in flight and their peaks.
 */
import * as grpc from '@grpc/grpc-js';
import { CaptureOutcome, type CaptureResponse, type ScreenshotServiceServer } from '@devplein/proto/screenshot';
import { fakePng } from './png.ts';
import { type FakeRpc, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

/**
 * How the fake ScreenshotService answers for one domain: an outcome (any number, so a newer
 * value such as REDIRECTED_AWAY = 6 can be sent), or an RPC error; after an optional delay.
 */
export interface FakeScreenshot {
  outcome?: CaptureOutcome | number;
  errorReason?: string;
  httpStatus?: number;
  /** Answer with this gRPC error instead of a response. */
  rpcError?: { code: grpc.status; details: string };
  delayMs?: number;
  /** The capture answers only once this settles: a test holds a capture running for as long as it needs, whatever the load. */
  heldUntil?: Promise<void>;
}

export interface ScreenshotServiceContext {
  state: Pick<FakeAgentState, 'screenshots' | 'screenshotDelayMs' | 'capturesInFlight' | 'peakCapturesPerDomain' | 'peakCapturesInFlight'>;
  rpc: FakeRpc;
  /** Captures are accepted only for `{label}.{siteDomain}`. */
  siteDomain: string;
}

export function screenshotService({ state, rpc, siteDomain }: ScreenshotServiceContext): ScreenshotServiceServer {
  const suffix = `.${siteDomain}`;
  const label = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
  return {
    capture: (call, callback) => {
      const request = call.request;
      void rpc.gate('capture', request).then(async (failure) => {
        if (failure) return callback(failure as grpc.ServiceError, null);
        const domain = request.domain;
        if (!domain.endsWith(suffix) || !label.test(domain.slice(0, -suffix.length))) {
          return callback(serviceError(grpc.status.INVALID_ARGUMENT, `domain ${JSON.stringify(domain)} is not under ${siteDomain}`) as grpc.ServiceError, null);
        }
        const script = state.screenshots.get(domain) ?? {};
        const running = (state.capturesInFlight.get(domain) ?? 0) + 1;
        state.capturesInFlight.set(domain, running);
        state.peakCapturesPerDomain.set(domain, Math.max(state.peakCapturesPerDomain.get(domain) ?? 0, running));
        const total = [...state.capturesInFlight.values()].reduce((sum, count) => sum + count, 0);
        state.peakCapturesInFlight = Math.max(state.peakCapturesInFlight, total);
        try {
          const delay = script.delayMs ?? state.screenshotDelayMs;
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          await script.heldUntil;
        } finally {
          const left = (state.capturesInFlight.get(domain) ?? 1) - 1;
          if (left > 0) state.capturesInFlight.set(domain, left);
          else state.capturesInFlight.delete(domain);
        }
        if (script.rpcError) return callback(serviceError(script.rpcError.code, script.rpcError.details) as grpc.ServiceError, null);
        const outcome = script.outcome ?? CaptureOutcome.CAPTURE_OUTCOME_CAPTURED;
        const rendered = outcome === CaptureOutcome.CAPTURE_OUTCOME_CAPTURED || outcome === CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR;
        const response: CaptureResponse = {
          outcome,
          errorReason: script.errorReason ?? (outcome === CaptureOutcome.CAPTURE_OUTCOME_CAPTURED ? '' : 'fake agent: capture failed'),
          fullPng: rendered ? fakePng(`${domain}/full`, 1280, 800) : Buffer.alloc(0),
          thumbnailPng: rendered ? fakePng(domain) : Buffer.alloc(0),
          httpStatus: script.httpStatus ?? (rendered ? 200 : 0),
          capturedAt: new Date(),
        };
        callback(null, response);
      });
    },
  };
}
