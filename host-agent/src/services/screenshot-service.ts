import * as grpc from '@grpc/grpc-js';
import {
  CaptureOutcome,
  type CaptureRequest,
  type CaptureResponse,
  ScreenshotServiceService,
  type ScreenshotServiceServer,
} from '@devplein/proto/screenshot';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config.ts';
import { BrowserUnavailableError, type CaptureOptions, ChromiumScreenshotter } from '../drivers/browser/chromium-screenshotter.ts';
import type { CaptureOutcomeKind } from '../drivers/browser/outcomes.ts';
import { type ScreenshotBrowser, screenshotBrowser } from '../drivers/browser/screenshot-browser.ts';
import { parseCaptureDomain, SiteAddressError } from '../drivers/browser/site-address.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;
export const DEFAULT_THUMBNAIL_WIDTH = 320;

/** Bounds of what a caller may ask for (a 10k-pixel viewport would eat the host's memory). */
const limits = {
  viewportWidth: [320, 3840],
  viewportHeight: [200, 4320],
  thumbnailWidth: [16, 3840],
  timeoutMs: [1_000, 120_000],
} as const;

const outcomes: Record<CaptureOutcomeKind, CaptureOutcome> = {
  captured: CaptureOutcome.CAPTURE_OUTCOME_CAPTURED,
  timeout: CaptureOutcome.CAPTURE_OUTCOME_TIMEOUT,
  unreachable: CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE,
  'http-error': CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR,
  'browser-error': CaptureOutcome.CAPTURE_OUTCOME_BROWSER_ERROR,
};

/** The caller's mistake or the host's state, with the gRPC code it maps to. */
class ScreenshotError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

function screenshotFailure(error: unknown): FailureStatus | undefined {
  return error instanceof ScreenshotError ? { code: error.code, details: error.message } : undefined;
}

function inRange(name: keyof typeof limits, value: number, fallback: number): number {
  if (value === 0) return fallback;
  const [min, max] = limits[name];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ScreenshotError(grpc.status.INVALID_ARGUMENT, `${name} must be 0 (default) or between ${min} and ${max}`);
  }
  return value;
}

/** The request checked and completed with the defaults; INVALID_ARGUMENT for anything else. */
export function captureOptionsFrom(
  request: CaptureRequest,
  config: Pick<AgentConfig['screenshots'], 'siteDomain' | 'timeoutMs'>,
): Omit<CaptureOptions, 'signal'> {
  let domain: string;
  try {
    domain = parseCaptureDomain(request.domain, config.siteDomain);
  } catch (error) {
    if (error instanceof SiteAddressError) throw new ScreenshotError(grpc.status.INVALID_ARGUMENT, error.message);
    throw error;
  }
  const width = inRange('viewportWidth', request.viewportWidth, DEFAULT_VIEWPORT.width);
  const height = inRange('viewportHeight', request.viewportHeight, DEFAULT_VIEWPORT.height);
  const thumbnailWidth = inRange('thumbnailWidth', request.thumbnailWidth, Math.min(DEFAULT_THUMBNAIL_WIDTH, width));
  if (thumbnailWidth > width) throw new ScreenshotError(grpc.status.INVALID_ARGUMENT, 'thumbnailWidth cannot be wider than the viewport');
  const timeoutMs = inRange('timeoutMs', request.timeoutMs, config.timeoutMs);
  return { domain, viewport: { width, height }, thumbnailWidth, timeoutMs };
}

/**
 * ScreenshotService: `http://{project}.{dev domain}/` rendered by the host's Chromium through
 * the reverse proxy (see ChromiumScreenshotter for the pool, limits and crash handling). A site
 * that does not load is an outcome in the response; RPC errors are INVALID_ARGUMENT (not a
 * project domain, bad sizes), UNAVAILABLE (no browser) and INTERNAL (logged).
 */
export class ScreenshotServiceImpl {
  private readonly screenshotter: ChromiumScreenshotter;
  private readonly browser: ScreenshotBrowser;

  /** `visitToken`: see ScreenshotterOptions (the agent's screenshot requests are not visits). */
  constructor(private readonly options: { config: AgentConfig; logger: Logger; visitToken?: string }) {
    const { config, logger, visitToken } = options;
    this.browser = screenshotBrowser(config, logger);
    this.screenshotter = new ChromiumScreenshotter({
      launcher: this.browser.launcher,
      chromiumPath: config.chromiumPath,
      proxy: config.screenshots.proxy,
      siteDomain: config.screenshots.siteDomain,
      pages: config.screenshots.pages,
      recycleAfter: config.screenshots.recycleAfter,
      capturesPerTab: config.screenshots.capturesPerTab,
      logger,
      visitToken,
    });
  }

  /** Closes the browser (the server calls this at shutdown). */
  async close(): Promise<void> {
    await this.screenshotter.close();
    await this.browser.close();
  }

  async capture(request: CaptureRequest, signal?: AbortSignal): Promise<CaptureResponse> {
    const options = captureOptionsFrom(request, this.options.config.screenshots);
    try {
      const result = await this.screenshotter.capture({ ...options, ...(signal ? { signal } : {}) });
      return {
        outcome: outcomes[result.outcome],
        errorReason: result.reason,
        fullPng: result.fullPng ?? Buffer.alloc(0),
        thumbnailPng: result.thumbnailPng ?? Buffer.alloc(0),
        httpStatus: result.httpStatus,
        capturedAt: result.capturedAt,
      };
    } catch (error) {
      if (error instanceof BrowserUnavailableError) throw new ScreenshotError(grpc.status.UNAVAILABLE, error.message);
      if (signal?.aborted) throw new ScreenshotError(grpc.status.CANCELLED, 'the caller cancelled the capture');
      throw error;
    }
  }

  addToServer(server: grpc.Server): void {
    const { reply } = grpcReply({ logger: this.options.logger, knownFailures: screenshotFailure });
    const handlers: ScreenshotServiceServer = {
      capture: (call, callback) => {
        const controller = new AbortController();
        call.once('cancelled', () => controller.abort(new Error('the caller cancelled the capture')));
        const started = Date.now();
        reply(
          call,
          callback,
          async (log) => {
            const response = await this.capture(call.request, controller.signal);
            log.info(
              {
                domain: call.request.domain,
                outcome: CaptureOutcome[response.outcome],
                reason: response.errorReason || undefined,
                httpStatus: response.httpStatus,
                ms: Date.now() - started,
              },
              'screenshot captured',
            );
            return response;
          },
          'Capture',
        );
      },
    };
    server.addService(ScreenshotServiceService, handlers);
  }
}
