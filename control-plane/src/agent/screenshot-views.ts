import { CaptureOutcome, type CaptureResponse } from '@devplein/proto/screenshot';

/**
 * Plain views of what the agent answers about screenshots. Routes, commands and jobs only ever
 * see these: no proto message leaves the agent module.
 */

/**
 * How a capture ended. `redirected_away` is a value a newer agent may send (REDIRECTED_AWAY = 6);
 * `unknown` is any other value this control plane does not know yet: a failure like the rest.
 */
export type CaptureOutcomeName = 'captured' | 'timeout' | 'unreachable' | 'http_error' | 'browser_error' | 'redirected_away' | 'unknown';

/** What Capture asks for; omitted sizes and timeout take the agent's defaults. */
export interface CaptureInput {
  /** A project domain `{label}.{siteDomain}`; the agent refuses anything else (INVALID_ARGUMENT). */
  domain: string;
  viewportWidth?: number;
  viewportHeight?: number;
  thumbnailWidth?: number;
  /** Time the agent allows for loading the page (the call's deadline adds some slack). */
  timeoutMs?: number;
}

/** Capture's answer. The PNGs are empty unless the page rendered. */
export interface CaptureView {
  outcome: CaptureOutcomeName;
  /** The raw enum value, for logs when `outcome` is 'unknown'. */
  outcomeCode: number;
  /** The agent's (English) reason when the outcome is not 'captured'. */
  errorReason: string;
  fullPng: Buffer;
  thumbnailPng: Buffer;
  /** HTTP status of the main document; 0 when none arrived. */
  httpStatus: number;
  /** When the agent took the picture; null when it did not say. */
  capturedAt: Date | null;
}

/** REDIRECTED_AWAY: not in this contract version yet, but announced by the agent's side. */
const REDIRECTED_AWAY = 6;

export function captureOutcomeName(code: number): CaptureOutcomeName {
  switch (code) {
    case CaptureOutcome.CAPTURE_OUTCOME_CAPTURED:
      return 'captured';
    case CaptureOutcome.CAPTURE_OUTCOME_TIMEOUT:
      return 'timeout';
    case CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE:
      return 'unreachable';
    case CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR:
      return 'http_error';
    case CaptureOutcome.CAPTURE_OUTCOME_BROWSER_ERROR:
      return 'browser_error';
    case REDIRECTED_AWAY:
      return 'redirected_away';
    default:
      return 'unknown';
  }
}

export function captureView(response: CaptureResponse): CaptureView {
  const code = Number(response.outcome);
  return {
    outcome: captureOutcomeName(code),
    outcomeCode: code,
    errorReason: response.errorReason,
    fullPng: Buffer.from(response.fullPng),
    thumbnailPng: Buffer.from(response.thumbnailPng),
    httpStatus: response.httpStatus,
    capturedAt: response.capturedAt ?? null,
  };
}
