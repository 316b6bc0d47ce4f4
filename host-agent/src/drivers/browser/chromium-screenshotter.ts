/**
 * Screenshots of student sites with one long-lived headless Chromium (Debian's, through
 * playwright-core) and a bounded pool of pages.
 *
 * - Every request the browser makes goes to the reverse proxy (`--proxy-server`, loopback not
 *   bypassed, and a host resolver that resolves nothing, so Chromium cannot reach any address
 *   by itself); on top, a route filter aborts every request whose host is not under the dev
 *   domain, so a page's external CDN scripts fail fast. A server-side redirect to another
 *   domain is followed by Chromium to the proxy only (Playwright's route handler does not see
 *   redirects), whose catch-all answers it; the capture then reports UNREACHABLE naming the
 *   outside host, without screenshots.
 * - Each capture runs in a fresh context (viewport, service workers blocked, downloads refused,
 *   dialogs dismissed, popups closed) and is bounded twice: the load by the capture's time
 *   limit, and the whole capture by a hard deadline (time limit + screenshot allowance) after
 *   which the context is closed, so a page that never stops loading cannot hold a slot.
 * - Crashes: a browser that disconnects is replaced by a new one on the next capture. A capture
 *   whose browser dies while its page is loading reports BROWSER_ERROR (a page that crashes the
 *   browser must not crash it twice); a capture that finds the browser dead before its page
 *   opened retries once on a fresh browser (not the site's fault).
 * - Recycling: after `recycleAfter` captures the browser is retired: new captures start on a
 *   fresh browser at once, the old one closes when its last in-flight capture has finished.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Browser, type BrowserContext, chromium, type Page, type Response } from 'playwright-core';
import type { Logger } from 'pino';
import { SCREENSHOT_HEADER } from '../proxy/access-log.ts';
import { CATCH_ALL_BODY } from '../proxy/caddy-route.ts';
import { type CaptureOutcomeKind, classifyLoadError, classifyProxyAnswer, redirectedAwayReason } from './outcomes.ts';
import { findProcessesWithArgument } from './processes.ts';
import { isSiteUrl } from './site-address.ts';
import { SlotQueue } from './slot-queue.ts';

/** The flags of NOTES.md that keep Chromium quiet on a closed network. */
export const BASE_CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The arguments that send every request of the browser to `proxy` (host:port) and nowhere else. */
export function proxyChromiumArgs(proxy: string): string[] {
  const proxyHost = proxy.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return [
    `--proxy-server=http://${proxy}`,
    // Chromium bypasses the proxy for loopback by default; `<-loopback>` removes that exception.
    '--proxy-bypass-list=<-loopback>',
    // Nothing resolves except the proxy's own name: no DNS lookups, no direct connections.
    `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${proxyHost}`,
  ];
}

export interface ScreenshotterOptions {
  chromiumPath: string;
  /** host:port of the reverse proxy's HTTP listener. */
  proxy: string;
  /** Only hosts under this domain may be loaded. */
  siteDomain: string;
  /** Captures in parallel (pages). */
  pages: number;
  /** A browser is retired after this many captures. */
  recycleAfter: number;
  logger: Logger;
  /** Pause after the load event for late rendering (fonts, scripts); default 250 ms. */
  settleMs?: number;
  /** Time allowed for the screenshots and closing on top of the load limit; default 5 s. */
  screenshotAllowanceMs?: number;
  /**
   * Sent in SCREENSHOT_HEADER with every request, so the idle auto-stop can tell the agent's
   * own visits from a visitor's (a capture must not keep an unvisited site running).
   */
  visitToken?: string;
}

export interface CaptureOptions {
  /** A validated project domain (see parseCaptureDomain). */
  domain: string;
  viewport: { width: number; height: number };
  thumbnailWidth: number;
  timeoutMs: number;
  /** Aborts the wait for a free page (the caller went away). */
  signal?: AbortSignal;
}

export interface CaptureResult {
  outcome: CaptureOutcomeKind;
  /** Empty when captured. */
  reason: string;
  fullPng?: Buffer;
  thumbnailPng?: Buffer;
  /** Status of the main document; 0 when none arrived. */
  httpStatus: number;
  capturedAt: Date;
  /** Milliseconds from getting a page to the result. */
  durationMs: number;
}

/** No browser can be started (missing binary, shutting down): the service answers UNAVAILABLE. */
export class BrowserUnavailableError extends Error {}

interface BrowserGeneration {
  id: number;
  browser: Browser;
  /** Marker switch on the browser's command line (to find its pid). */
  marker: string;
  captures: number;
  inFlight: number;
  retired: boolean;
}

/** Races `promise` against a timer; undefined when the timer won. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

let instances = 0;

/** The pool: one browser (two briefly while recycling), `pages` captures at a time, a FIFO queue in front. */
export class ChromiumScreenshotter {
  private readonly slots: SlotQueue;
  private readonly instance = `${process.pid}-${++instances}`;
  private current: BrowserGeneration | undefined;
  private launching: Promise<BrowserGeneration> | undefined;
  private readonly generations = new Set<BrowserGeneration>();
  private launches = 0;
  private closed = false;

  constructor(private readonly options: ScreenshotterOptions) {
    this.slots = new SlotQueue(options.pages);
  }

  /** Browsers launched so far (a relaunch after a crash or a recycle counts). */
  get launchCount(): number {
    return this.launches;
  }

  /** Pid of the current browser's main process, when one runs (Linux /proc). */
  browserPid(): number | undefined {
    const current = this.current;
    return current ? findProcessesWithArgument(current.marker)[0] : undefined;
  }

  /** Captures `http://{domain}/`. Only a missing browser throws (BrowserUnavailableError); everything a site does is an outcome. */
  async capture(options: CaptureOptions): Promise<CaptureResult> {
    if (this.closed) throw new BrowserUnavailableError('the screenshot browser is shutting down');
    const release = await this.slots.acquire(options.signal);
    try {
      return await this.captureWithPage(options);
    } finally {
      release();
    }
  }

  /** Closes every browser; captures still running end as BROWSER_ERROR. */
  async close(): Promise<void> {
    this.closed = true;
    const launching = this.launching;
    if (launching) await launching.catch(() => undefined);
    await Promise.all([...this.generations].map((generation) => this.closeGeneration(generation)));
    this.current = undefined;
  }

  private async captureWithPage(options: CaptureOptions): Promise<CaptureResult> {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      const generation = await this.claimBrowser();
      let context: BrowserContext;
      try {
        context = await this.newContext(generation, options);
      } catch (error) {
        this.releaseBrowser(generation);
        this.retire(generation, 'could not open a context');
        if (attempt < 2 && !this.closed) {
          this.options.logger.warn({ err: error, browser: generation.id }, 'screenshots: the browser failed before the page opened; retrying on a new browser');
          continue;
        }
        return this.result(started, { outcome: 'browser-error', reason: 'de browser kon geen nieuwe pagina openen', httpStatus: 0 });
      }
      try {
        return await this.captureInContext(context, options, started, Date.now());
      } finally {
        const closedInTime = await within(
          context.close().then(() => true, () => true),
          5_000,
        );
        if (!closedInTime) this.retire(generation, 'a context did not close within 5 s');
        this.releaseBrowser(generation);
      }
    }
  }

  private async newContext(generation: BrowserGeneration, options: CaptureOptions): Promise<BrowserContext> {
    const context = await generation.browser.newContext({
      viewport: options.viewport,
      deviceScaleFactor: 1,
      javaScriptEnabled: true,
      serviceWorkers: 'block',
      acceptDownloads: false,
      locale: 'nl-NL',
      timezoneId: 'Europe/Amsterdam',
      ...(this.options.visitToken ? { extraHTTPHeaders: { [SCREENSHOT_HEADER]: this.options.visitToken } } : {}),
    });
    return context;
  }

  /** Load and screenshots under the hard deadline; on the deadline the caller's finally closes the context. */
  /**
   * Load and screenshots under the hard deadline; on the deadline the caller's finally closes the
   * context. The time limit counts from here (the page is open), so a slow browser start on a
   * busy host is not held against the site.
   */
  private async captureInContext(context: BrowserContext, options: CaptureOptions, started: number, loadStarted: number): Promise<CaptureResult> {
    const hardLimitMs = options.timeoutMs + (this.options.screenshotAllowanceMs ?? 5_000);
    const state = { responded: false, httpStatus: 0, blockedNavigation: undefined as string | undefined };
    const finished = await within(this.loadAndShoot(context, options, state, started, loadStarted), hardLimitMs);
    if (finished) return finished;
    const limit = `${Math.round(hardLimitMs / 1000)} s`;
    return this.result(started, {
      outcome: 'timeout',
      reason: state.responded ? `de pagina werd niet binnen ${limit} vastgelegd (de pagina bleef bezig)` : `de site antwoordde niet binnen ${limit}`,
      httpStatus: state.httpStatus,
    });
  }

  private async loadAndShoot(
    context: BrowserContext,
    options: CaptureOptions,
    state: { responded: boolean; httpStatus: number; blockedNavigation: string | undefined },
    started: number,
    loadStarted: number,
  ): Promise<CaptureResult> {
    const { siteDomain, proxy } = this.options;
    const { timeoutMs } = options;
    const remaining = () => Math.max(1, timeoutMs - (Date.now() - loadStarted));
    const mainPage = await context.newPage();

    await context.route('**/*', async (route) => {
      const request = route.request();
      try {
        if (isSiteUrl(request.url(), siteDomain)) {
          await route.continue();
          return;
        }
        if (request.isNavigationRequest() && request.frame() === mainPage.mainFrame()) state.blockedNavigation = request.url();
        await route.abort('blockedbyclient');
      } catch {
        // The page or context closed meanwhile.
      }
    });
    // Popups (window.open, target=_blank clicks from scripts) are closed at once.
    context.on('page', (opened) => {
      if (opened !== mainPage) opened.close().catch(() => undefined);
    });
    mainPage.on('dialog', (dialog) => {
      dialog.dismiss().catch(() => undefined);
    });
    mainPage.on('response', (response: Response) => {
      if (response.request().isNavigationRequest() && response.frame() === mainPage.mainFrame()) state.responded = true;
    });
    const crashed = new Promise<'crashed'>((resolve) => mainPage.once('crash', () => resolve('crashed')));
    const failure = (error: unknown) => {
      const classified = classifyLoadError(error, { timeoutMs, proxy, siteDomain, responded: state.responded, blockedNavigation: state.blockedNavigation });
      return this.result(started, { ...classified, httpStatus: state.httpStatus });
    };
    const crashResult = () => this.result(started, { outcome: 'browser-error', reason: 'het tabblad van de browser is gecrasht tijdens het laden', httpStatus: state.httpStatus });

    let response: Response | null;
    try {
      const navigation = mainPage.goto(`http://${options.domain}/`, { waitUntil: 'domcontentloaded', timeout: remaining() });
      const first = await Promise.race([navigation, crashed]);
      if (first === 'crashed') return crashResult();
      response = first;
    } catch (error) {
      return failure(error);
    }
    state.httpStatus = response?.status() ?? 0;
    const finalUrl = response?.url() ?? mainPage.url();
    if (!isSiteUrl(finalUrl, siteDomain)) {
      return this.result(started, { outcome: 'unreachable', reason: redirectedAwayReason(finalUrl, siteDomain), httpStatus: state.httpStatus });
    }
    if (response && state.httpStatus >= 400) {
      const body = await within(response.text().catch(() => ''), 1_000);
      const proxyAnswer = classifyProxyAnswer(state.httpStatus, body ?? 'unknown', CATCH_ALL_BODY);
      if (proxyAnswer) return this.result(started, { ...proxyAnswer, httpStatus: state.httpStatus });
    }

    // The load event (images, styles) within what is left of the time limit; a page whose
    // document is there but keeps loading something is still captured as it looks by then.
    const loaded = await Promise.race([
      mainPage.waitForLoadState('load', { timeout: remaining() }).then(
        () => 'loaded' as const,
        () => 'still loading' as const,
      ),
      crashed,
    ]);
    if (loaded === 'crashed') return crashResult();
    await sleep(Math.min(this.options.settleMs ?? 250, remaining()));
    if (state.blockedNavigation || !isSiteUrl(mainPage.url(), siteDomain)) {
      return this.result(started, {
        outcome: 'unreachable',
        reason: redirectedAwayReason(state.blockedNavigation ?? mainPage.url(), siteDomain),
        httpStatus: state.httpStatus,
      });
    }

    try {
      const shots = await Promise.race([this.screenshots(context, mainPage, options), crashed]);
      if (shots === 'crashed') return crashResult();
      const error = state.httpStatus >= 400;
      return this.result(started, {
        outcome: error ? 'http-error' : 'captured',
        reason: error ? `de site antwoordt met HTTP ${state.httpStatus}` : '',
        httpStatus: state.httpStatus,
        ...shots,
      });
    } catch (error) {
      return failure(error);
    }
  }

  /** The viewport at full size and scaled to the thumbnail width, both rendered by Chromium (no image library). */
  private async screenshots(context: BrowserContext, page: Page, options: CaptureOptions): Promise<{ fullPng: Buffer; thumbnailPng: Buffer }> {
    const cdp = await context.newCDPSession(page);
    try {
      const { cssVisualViewport } = await cdp.send('Page.getLayoutMetrics');
      const clip = { x: cssVisualViewport.pageX, y: cssVisualViewport.pageY, width: options.viewport.width, height: options.viewport.height };
      const shoot = async (scale: number) => {
        const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale }, fromSurface: true });
        return Buffer.from(data, 'base64');
      };
      const fullPng = await shoot(1);
      const thumbnailPng = await shoot(options.thumbnailWidth / options.viewport.width);
      return { fullPng, thumbnailPng };
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  private result(started: number, fields: Omit<CaptureResult, 'capturedAt' | 'durationMs'>): CaptureResult {
    return { ...fields, capturedAt: new Date(), durationMs: Date.now() - started };
  }

  /** The browser for the next capture: the current one, or a new one when it died or has done its share. */
  private async claimBrowser(): Promise<BrowserGeneration> {
    for (;;) {
      if (this.closed) throw new BrowserUnavailableError('the screenshot browser is shutting down');
      const current = this.current;
      if (current && !current.retired && current.browser.isConnected() && current.captures < this.options.recycleAfter) {
        current.captures += 1;
        current.inFlight += 1;
        return current;
      }
      if (current) this.retire(current, current.browser.isConnected() ? `recycled after ${current.captures} captures` : 'the browser disconnected');
      this.launching ??= this.launch().finally(() => {
        this.launching = undefined;
      });
      await this.launching;
    }
  }

  private releaseBrowser(generation: BrowserGeneration): void {
    generation.inFlight -= 1;
    if (generation.retired && generation.inFlight === 0) void this.closeGeneration(generation);
  }

  /** No new captures on `generation`; it closes once its in-flight captures are done. */
  private retire(generation: BrowserGeneration, why: string): void {
    if (this.current === generation) this.current = undefined;
    if (generation.retired) return;
    generation.retired = true;
    this.options.logger.info({ browser: generation.id, captures: generation.captures, inFlight: generation.inFlight, why }, 'screenshots: retiring the browser');
    if (generation.inFlight === 0) void this.closeGeneration(generation);
  }

  private async closeGeneration(generation: BrowserGeneration): Promise<void> {
    generation.retired = true;
    if (this.current === generation) this.current = undefined;
    if (!this.generations.delete(generation)) return;
    const done = await within(generation.browser.close().then(() => true, () => true), 10_000);
    if (!done) {
      // A wedged browser: kill its process so memory is freed.
      for (const pid of findProcessesWithArgument(generation.marker)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }

  private async launch(): Promise<BrowserGeneration> {
    const id = ++this.launches;
    const marker = `--devplein-screenshots=${this.instance}-${id}`;
    const startedAt = Date.now();
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.options.chromiumPath,
        args: [...BASE_CHROMIUM_ARGS, ...proxyChromiumArgs(this.options.proxy), marker],
        timeout: 30_000,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new BrowserUnavailableError(`could not start Chromium (${this.options.chromiumPath}): ${message}`, { cause: error });
    }
    const generation: BrowserGeneration = { id, browser, marker, captures: 0, inFlight: 0, retired: false };
    browser.on('disconnected', () => {
      if (!generation.retired && !this.closed) this.options.logger.warn({ browser: id, captures: generation.captures }, 'screenshots: the browser disconnected; the next capture starts a new one');
      if (this.current === generation) this.current = undefined;
      generation.retired = true;
      this.generations.delete(generation);
    });
    if (this.closed) {
      await browser.close().catch(() => undefined);
      throw new BrowserUnavailableError('the screenshot browser is shutting down');
    }
    this.generations.add(generation);
    this.current = generation;
    this.options.logger.info({ browser: id, ms: Date.now() - startedAt, version: browser.version() }, 'screenshots: browser started');
    return generation;
  }
}
