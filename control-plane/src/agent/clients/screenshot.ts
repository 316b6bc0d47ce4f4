import type { CaptureResponse, ScreenshotServiceClient } from '@devplein/proto/screenshot';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import { captureView, type CaptureView, type CaptureInput } from '../screenshot-views.ts';
import type { AgentCallOptions } from '../call-options.ts';

/**
 * ScreenshotService: renders a project's site through the host's reverse proxy. A site that does
 * not load is a normal answer (see CaptureView.outcome); rejects with AgentError only for
 * INVALID_ARGUMENT (a domain outside the dev domain), UNAVAILABLE (no browser, agent down) and the
 * deadline (the capture's own timeout plus slack).
 */
export interface ScreenshotApi {
  capture(input: CaptureInput, options?: AgentCallOptions): Promise<CaptureView>;
}

/** The agent's page time limit when a Capture asks for none (screenshot.proto). */
const CAPTURE_DEFAULT_TIMEOUT_MS = 15_000;
/** Capture's deadline beyond the page's time limit: browser (re)start, rendering, PNG encoding. */
const CAPTURE_DEADLINE_SLACK_MS = 15_000;

/** ScreenshotService over the link: captures of project sites through the reverse proxy. */
export function createScreenshotClient(client: ScreenshotServiceClient, unary: UnaryCall, deadlines: AgentDeadlines): ScreenshotApi {
  return {
    async capture(input, callOptions) {
      const timeoutMs = input.timeoutMs ?? 0;
      const request = {
        domain: input.domain,
        viewportWidth: input.viewportWidth ?? 0,
        viewportHeight: input.viewportHeight ?? 0,
        thumbnailWidth: input.thumbnailWidth ?? 0,
        timeoutMs,
      };
      // The page's own time limit (the agent's default is 15 s) plus slack for a browser
      // (re)start and encoding the PNGs: the agent answers TIMEOUT itself well before this.
      const captureDeadlineMs = (timeoutMs > 0 ? timeoutMs : CAPTURE_DEFAULT_TIMEOUT_MS) + CAPTURE_DEADLINE_SLACK_MS;
      const response = await unary<CaptureResponse>(
        'Capture',
        (md, opts, cb) => client.capture(request, md, opts, cb),
        { deadlineMs: Math.max(deadlines.call, captureDeadlineMs), ...callOptions },
      );
      return captureView(response);
    },
  };
}
