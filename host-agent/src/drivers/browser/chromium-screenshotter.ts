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
 * - Tabs: each capture runs in a tab — its own context (service workers blocked, downloads
 *   refused, dialogs dismissed, popups closed) with one page — that is kept warm for the next
 *   capture: opening a context costs Chromium about three times the CPU of the capture itself
 *   (measured: ~2.1 s vs ~0.8 s per capture on this project's 2-core machines). Between captures
 *   the tab goes to about:blank and its cookies and the site's storage are cleared, so nothing a
 *   site leaves behind is seen by the next one; a tab is replaced after `capturesPerTab`
 *   captures, after a crash, and whenever it could not be reset in time.
 * - Every capture is bounded twice: the load by the capture's time limit, and the whole capture
 *   by a hard deadline (time limit + screenshot allowance) after which its tab is closed, so a
 *   page that never stops loading cannot hold a slot.
 * - Crashes: a browser that disconnects is replaced by a new one on the next capture. A capture
 *   whose browser dies while its page is loading reports BROWSER_ERROR (a page that crashes the
 *   browser must not crash it twice); a capture that finds the browser dead before its page
 *   opened retries once on a fresh browser (not the site's fault).
 * - Recycling: after `recycleAfter` captures the browser is retired: new captures start on a
 *   fresh browser at once, the old one closes when its last in-flight capture has finished.
 * - Where browsers run: the `launcher` (launchers.ts). Normally the browser server, which runs
 *   Chromium as its own unprivileged user with the sandbox on (issue 16, screenshot-browser.ts);
 *   the fallback without it is Chromium inside this process with --no-sandbox.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Browser, type BrowserContext, type CDPSession, type Dialog, type Page, type Response } from 'playwright-core';
import type { Logger } from 'pino';
import { SCREENSHOT_HEADER } from '../proxy/access-log.ts';
import { CATCH_ALL_BODY } from '../proxy/caddy-route.ts';
import { type CaptureOutcomeKind, classifyLoadError, classifyProxyAnswer, redirectedAwayReason } from './outcomes.ts';
import { type BrowserLauncher, type LaunchedBrowser, localBrowserLauncher } from './launchers.ts';
import { findProcessesWithArgument } from './processes.ts';
import { isSiteUrl } from './site-address.ts';
import { SlotQueue } from './slot-queue.ts';

/**
 * The flags of NOTES.md that keep Chromium quiet on a closed network. No `--no-sandbox`: the
 * browser server runs Chromium with its sandbox on; only the in-agent fallback adds it
 * (launchers.ts).
 */
export const BASE_CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * WebRTC may not send UDP around the proxy (STUN/TURN to any address a page names): with these
 * it only talks TCP through the proxy, which answers nothing but sites. The iptables owner rules
 * of the browser's user (browser-firewall.ts) stop the same traffic a second time.
 */
export const WEBRTC_CHROMIUM_ARGS: readonly string[] = [
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
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
  /** A tab (context + page) is replaced after this many captures; default 25. */
  capturesPerTab?: number;
  /**
   * Sent in SCREENSHOT_HEADER with every request, so the idle auto-stop can tell the agent's
   * own visits from a visitor's (a capture must not keep an unvisited site running).
   */
  visitToken?: string;
  /** Where browsers come from; default: Chromium in this process without its sandbox (the fallback). */
  launcher?: BrowserLauncher;
  /**
   * Leave out WEBRTC_CHROMIUM_ARGS. Only for the isolation test's controls, which show what
   * the iptables rules alone stop; never set in the agent.
   */
  allowNonProxiedUdp?: boolean;
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
  launched: LaunchedBrowser;
  /** Settles when the browser's connection is gone. */
  disconnected: Promise<void>;
  /** Marker switch on the browser's command line (to find its pid). */
  marker: string;
  captures: number;
  inFlight: number;
  retired: boolean;
  /** Warm tabs waiting for the next capture. */
  idleTabs: Tab[];
}

/** What the listeners of a tab need to know about the capture running in it. */
interface CaptureState {
  responded: boolean;
  httpStatus: number;
  /** The off-domain URL the main frame tried to go to, when the route filter blocked it. */
  blockedNavigation: string | undefined;
}

/** A context with one page, reused across captures (see the header comment). */
interface Tab {
  generation: BrowserGeneration;
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  captures: number;
  /** The capture running in this tab, if any. */
  capture: CaptureState | undefined;
  /** Settles when the page's renderer crashes (the page object is dead after that). */
  crashed: Promise<'crashed'>;
  hasCrashed: boolean;
}

const TAB_RESET_MS = 3_000;

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

  private readonly launcher: BrowserLauncher;

  constructor(private readonly options: ScreenshotterOptions) {
    this.slots = new SlotQueue(options.pages);
    this.launcher = options.launcher ?? localBrowserLauncher(options.chromiumPath);
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
    // The slot is held until the tab is reset or closed, but the result does not wait for that.
    let tidied: Promise<void> = Promise.resolve();
    try {
      const { result, tidy } = await this.captureWithPage(options);
      tidied = tidy;
      return result;
    } finally {
      void tidied.finally(release);
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

  /** The result, and `tidy`: settles when the tab and browser are given back. */
  private async captureWithPage(options: CaptureOptions): Promise<{ result: CaptureResult; tidy: Promise<void> }> {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      const generation = await this.claimBrowser();
      let tab: Tab;
      try {
        tab = await this.takeTab(generation, options);
      } catch (error) {
        this.releaseBrowser(generation);
        this.retire(generation, 'could not open a tab');
        if (attempt < 2 && !this.closed) {
          this.options.logger.warn({ err: error, browser: generation.id }, 'screenshots: the browser failed before the page opened; retrying on a new browser');
          continue;
        }
        const result = this.result(started, { outcome: 'browser-error', reason: 'de browser kon geen nieuwe pagina openen', httpStatus: 0 });
        return { result, tidy: Promise.resolve() };
      }
      const giveBack = (reusable: boolean) => this.returnTab(tab, options.domain, reusable).finally(() => this.releaseBrowser(generation));
      let outcome: { result: CaptureResult; finishedInTime: boolean; responded: boolean };
      try {
        outcome = await this.captureInTab(tab, options, started, Date.now());
      } catch (error) {
        tab.capture = undefined;
        void giveBack(false);
        throw error;
      }
      tab.capture = undefined;
      const tidy = giveBack(outcome.finishedInTime);
      // A warm tab of a browser that died unnoticed fails before the site has answered: that
      // is not the site's doing, so the capture runs once more on a new browser. The browser
      // server's Chromium reports its death over the WebSocket a moment after the page failed:
      // up to 2 s are given for that news before the failure counts.
      if (
        outcome.result.outcome === 'browser-error' &&
        !outcome.responded &&
        attempt < 2 &&
        !this.closed &&
        (!generation.browser.isConnected() || (await within(generation.disconnected.then(() => true), 2_000)) === true)
      ) {
        this.options.logger.warn({ browser: generation.id }, 'screenshots: the browser died before the site answered; retrying on a new browser');
        await tidy;
        continue;
      }
      return { result: outcome.result, tidy };
    }
  }

  /** A warm tab of `generation`, or a new one; its viewport set for this capture. */
  private async takeTab(generation: BrowserGeneration, options: CaptureOptions): Promise<Tab> {
    for (;;) {
      const idle = generation.idleTabs.pop();
      const tab = idle ?? (await this.openTab(generation, options));
      try {
        if (tab.hasCrashed) throw new Error('the tab crashed while it was idle');
        const size = tab.page.viewportSize();
        if (size?.width !== options.viewport.width || size.height !== options.viewport.height) await tab.page.setViewportSize(options.viewport);
      } catch (error) {
        void tab.context.close().catch(() => undefined);
        // A warm tab that broke while idle is replaced; a new tab that fails means the browser does.
        if (idle) continue;
        throw error;
      }
      tab.captures += 1;
      return tab;
    }
  }

  private async openTab(generation: BrowserGeneration, options: CaptureOptions): Promise<Tab> {
    const { siteDomain } = this.options;
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
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      let markCrashed: (value: 'crashed') => void = () => undefined;
      const tab: Tab = {
        generation,
        context,
        page,
        cdp,
        captures: 0,
        capture: undefined,
        crashed: new Promise<'crashed'>((resolve) => (markCrashed = resolve)),
        hasCrashed: false,
      };
      page.once('crash', () => {
        tab.hasCrashed = true;
        markCrashed('crashed');
      });
      // Only the dev domain is loaded; an off-domain navigation of the main frame is remembered
      // so the capture can name where the site tried to go.
      await context.route('**/*', async (route) => {
        const request = route.request();
        try {
          if (isSiteUrl(request.url(), siteDomain)) {
            await route.continue();
            return;
          }
          if (tab.capture && request.isNavigationRequest() && request.frame() === page.mainFrame()) tab.capture.blockedNavigation = request.url();
          await route.abort('blockedbyclient');
        } catch {
          // The page or context closed meanwhile.
        }
      });
      // Popups (window.open, target=_blank clicks from scripts) are closed at once.
      context.on('page', (opened) => {
        if (opened !== page) opened.close().catch(() => undefined);
      });
      page.on('dialog', (dialog: Dialog) => {
        dialog.dismiss().catch(() => undefined);
      });
      page.on('response', (response: Response) => {
        if (tab.capture && response.request().isNavigationRequest() && response.frame() === page.mainFrame()) tab.capture.responded = true;
      });
      return tab;
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Back to the pool, reset, when the capture ended in time and the tab still works; closed
   * otherwise. A tab that cannot even be closed means a wedged browser: it is retired.
   */
  private async returnTab(tab: Tab, domain: string, finishedInTime: boolean): Promise<void> {
    const { generation } = tab;
    const reusable =
      finishedInTime &&
      !tab.hasCrashed &&
      !generation.retired &&
      !this.closed &&
      tab.captures < (this.options.capturesPerTab ?? 25) &&
      (await within(this.resetTab(tab, domain), TAB_RESET_MS)) === true;
    if (reusable) {
      generation.idleTabs.push(tab);
      return;
    }
    const closedInTime = await within(
      tab.context.close().then(() => true, () => true),
      5_000,
    );
    if (!closedInTime) this.retire(generation, 'a tab did not close within 5 s');
  }

  /** about:blank, no cookies, and nothing stored for the site: the next capture starts clean. */
  private async resetTab(tab: Tab, domain: string): Promise<boolean> {
    try {
      await tab.page.goto('about:blank', { timeout: TAB_RESET_MS });
      await tab.context.clearCookies();
      await tab.cdp.send('Storage.clearDataForOrigin', { origin: `http://${domain}`, storageTypes: 'all' });
      return !tab.hasCrashed;
    } catch {
      return false;
    }
  }

  /**
   * Load and screenshots under the hard deadline; when the deadline wins the caller closes the
   * tab. The time limit counts from here (the page is open), so a slow browser start on a busy
   * host is not held against the site.
   */
  private async captureInTab(
    tab: Tab,
    options: CaptureOptions,
    started: number,
    loadStarted: number,
  ): Promise<{ result: CaptureResult; finishedInTime: boolean; responded: boolean }> {
    const hardLimitMs = options.timeoutMs + (this.options.screenshotAllowanceMs ?? 5_000);
    const state: CaptureState = { responded: false, httpStatus: 0, blockedNavigation: undefined };
    tab.capture = state;
    const finished = await within(this.loadAndShoot(tab, options, state, started, loadStarted), hardLimitMs);
    if (finished) return { result: finished, finishedInTime: true, responded: state.responded };
    const limit = `${Math.round(hardLimitMs / 1000)} s`;
    const result = this.result(started, {
      outcome: 'timeout',
      reason: state.responded ? `de pagina werd niet binnen ${limit} vastgelegd (de pagina bleef bezig)` : `de site antwoordde niet binnen ${limit}`,
      httpStatus: state.httpStatus,
    });
    return { result, finishedInTime: false, responded: state.responded };
  }

  private async loadAndShoot(tab: Tab, options: CaptureOptions, state: CaptureState, started: number, loadStarted: number): Promise<CaptureResult> {
    const { siteDomain, proxy } = this.options;
    const { timeoutMs } = options;
    const { page, crashed } = tab;
    const remaining = () => Math.max(1, timeoutMs - (Date.now() - loadStarted));
    const failure = (error: unknown) => {
      const classified = classifyLoadError(error, { timeoutMs, proxy, siteDomain, responded: state.responded, blockedNavigation: state.blockedNavigation });
      return this.result(started, { ...classified, httpStatus: state.httpStatus });
    };
    const crashResult = () => this.result(started, { outcome: 'browser-error', reason: 'het tabblad van de browser is gecrasht tijdens het laden', httpStatus: state.httpStatus });

    let response: Response | null;
    try {
      const navigation = page.goto(`http://${options.domain}/`, { waitUntil: 'domcontentloaded', timeout: remaining() });
      const first = await Promise.race([navigation, crashed]);
      if (first === 'crashed') return crashResult();
      response = first;
    } catch (error) {
      return failure(error);
    }
    state.httpStatus = response?.status() ?? 0;
    const finalUrl = response?.url() ?? page.url();
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
      page.waitForLoadState('load', { timeout: remaining() }).then(
        () => 'loaded' as const,
        () => 'still loading' as const,
      ),
      crashed,
    ]);
    if (loaded === 'crashed') return crashResult();
    await sleep(Math.min(this.options.settleMs ?? 250, remaining()));
    if (state.blockedNavigation || !isSiteUrl(page.url(), siteDomain)) {
      return this.result(started, {
        outcome: 'unreachable',
        reason: redirectedAwayReason(state.blockedNavigation ?? page.url(), siteDomain),
        httpStatus: state.httpStatus,
      });
    }

    try {
      const shots = await Promise.race([this.screenshots(tab.cdp, options), crashed]);
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
  private async screenshots(cdp: CDPSession, options: CaptureOptions): Promise<{ fullPng: Buffer; thumbnailPng: Buffer }> {
    const { cssVisualViewport } = await cdp.send('Page.getLayoutMetrics');
    const clip = { x: cssVisualViewport.pageX, y: cssVisualViewport.pageY, width: options.viewport.width, height: options.viewport.height };
    const shoot = async (scale: number) => {
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale }, fromSurface: true });
      return Buffer.from(data, 'base64');
    };
    const fullPng = await shoot(1);
    const thumbnailPng = await shoot(options.thumbnailWidth / options.viewport.width);
    return { fullPng, thumbnailPng };
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
    const done = await within(generation.launched.close().then(() => true, () => true), 10_000);
    // A wedged browser: kill its processes so memory is freed.
    if (!done) generation.launched.kill();
  }

  private async launch(): Promise<BrowserGeneration> {
    const id = ++this.launches;
    const marker = `--devplein-screenshots=${this.instance}-${id}`;
    const startedAt = Date.now();
    const args = [
      ...BASE_CHROMIUM_ARGS,
      ...(this.options.allowNonProxiedUdp ? [] : WEBRTC_CHROMIUM_ARGS),
      ...proxyChromiumArgs(this.options.proxy),
      marker,
    ];
    let launched: LaunchedBrowser;
    try {
      launched = await this.launcher.launch(args, marker, 30_000);
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new BrowserUnavailableError(`could not start Chromium (${this.launcher.kind}, ${this.options.chromiumPath}): ${message}`, { cause: error });
    }
    const { browser } = launched;
    let markDisconnected: () => void = () => undefined;
    const disconnected = new Promise<void>((resolve) => (markDisconnected = resolve));
    const generation: BrowserGeneration = { id, browser, launched, disconnected, marker, captures: 0, inFlight: 0, retired: false, idleTabs: [] };
    browser.on('disconnected', () => {
      markDisconnected();
      if (!generation.retired && !this.closed) this.options.logger.warn({ browser: id, captures: generation.captures }, 'screenshots: the browser disconnected; the next capture starts a new one');
      if (this.current === generation) this.current = undefined;
      generation.retired = true;
      this.generations.delete(generation);
      // A browser server's Chromium that lost its connection is not left running there.
      void launched.close().catch(() => undefined);
    });
    if (this.closed) {
      await launched.close().catch(() => undefined);
      throw new BrowserUnavailableError('the screenshot browser is shutting down');
    }
    this.generations.add(generation);
    this.current = generation;
    this.options.logger.info({ browser: id, ms: Date.now() - startedAt, version: browser.version(), runs: this.launcher.kind }, 'screenshots: browser started');
    return generation;
  }
}
