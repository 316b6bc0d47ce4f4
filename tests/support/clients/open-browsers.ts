/**
 * The Chromium instances the tests of this worker have open (launchBrowser registers them), so
 * that a failed test can say what its pages showed (tests/support/pages-on-failure.ts): each
 * page's address and heading, and its last requests to the control plane (status and time) and
 * console lines. A page that landed on /login says why: a 401, a start-up fetch that gave up, a
 * 5xx. Types only from playwright: this module is loaded by every test file and must stay light.
 * A test that closes its context in a `finally` would leave nothing to show: the pages a context
 * closes are kept (address, events, a viewport picture) until the next test starts.
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';

const browsers = new Set<Browser>();
/** The last few things each page did, oldest first. */
const pageEvents = new WeakMap<Page, string[]>();
const EVENTS_KEPT = 8;
/** Requests worth naming: the app's API, sign-in and sign-out, and page loads. */
const WATCHED_PATH = /^\/(api|auth|session|logout)(\/|$)/;

/** A page as it was when the test closed its context. */
export interface ClosedPage {
  url: string;
  events: readonly string[];
  picture: Buffer | undefined;
}

let closedPages: ClosedPage[] = [];

export function registerBrowser(browser: Browser): void {
  browsers.add(browser);
  browser.on('disconnected', () => browsers.delete(browser));
  // Browser.newPage goes through newContext too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>): Promise<BrowserContext> => {
    const context = await newContext(...args);
    context.on('page', watchPage);
    const close = context.close.bind(context);
    context.close = async (...closeArgs: Parameters<BrowserContext['close']>): Promise<void> => {
      await keepClosingPages(context);
      return close(...closeArgs);
    };
    return context;
  };
}

/** Every open page of every registered browser. */
export function openPages(): Page[] {
  return [...browsers].flatMap((browser) => browser.contexts().flatMap((context) => context.pages()));
}

/** The pages closed with their context since the last `forgetClosedPages()`. */
export function closedPagesOfThisTest(): readonly ClosedPage[] {
  return closedPages;
}

/** Called when a test starts: what an earlier test closed is not this test's. */
export function forgetClosedPages(): void {
  closedPages = [];
}

async function keepClosingPages(context: BrowserContext): Promise<void> {
  for (const page of context.pages()) {
    if (page.isClosed()) continue;
    // A viewport JPEG: cheap enough to take for every closing page, kept only in memory.
    const picture = await page.screenshot({ type: 'jpeg', quality: 60, timeout: 2_000 }).catch(() => undefined);
    closedPages.push({ url: page.url(), events: recentPageEvents(page), picture });
  }
}

/** What `page` did last (requests with status and time, console lines), oldest first. */
export function recentPageEvents(page: Page): readonly string[] {
  return pageEvents.get(page) ?? [];
}

function watchPage(page: Page): void {
  const startedAt = new WeakMap<Request, number>();
  const since = (request: Request): string => {
    const start = startedAt.get(request);
    return start === undefined ? '' : ` ${Date.now() - start} ms`;
  };
  page.on('request', (request) => {
    if (watched(request)) startedAt.set(request, Date.now());
  });
  page.on('response', (response) => {
    const request = response.request();
    if (watched(request)) remember(page, `${request.method()} ${pathOf(request.url())} ${response.status()}${since(request)}`);
  });
  page.on('requestfailed', (request) => {
    if (watched(request)) remember(page, `${request.method()} ${pathOf(request.url())} failed (${request.failure()?.errorText ?? '?'})${since(request)}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'debug') remember(page, `console.${message.type()}: ${message.text().slice(0, 160)}`);
  });
}

function watched(request: Request): boolean {
  return request.isNavigationRequest() || WATCHED_PATH.test(pathOf(request.url()));
}

function remember(page: Page, event: string): void {
  const events = pageEvents.get(page) ?? [];
  events.push(event);
  if (events.length > EVENTS_KEPT) events.shift();
  pageEvents.set(page, events);
}

/** A page address as its path (about:blank and the like as they are). */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
