/**
 * The Chromium instances the tests of this worker have open (launchBrowser registers them), so
 * that a failed test can say what its pages showed (tests/support/pages-on-failure.ts). Types
 * only: this module is loaded by every test file and must stay light.
 */
import type { Browser, Page } from 'playwright-core';

const browsers = new Set<Browser>();

export function registerBrowser(browser: Browser): void {
  browsers.add(browser);
  browser.on('disconnected', () => browsers.delete(browser));
}

/** Every open page of every registered browser. */
export function openPages(): Page[] {
  return [...browsers].flatMap((browser) => browser.contexts().flatMap((context) => context.pages()));
}
