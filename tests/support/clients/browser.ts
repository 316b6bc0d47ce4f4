import { chromium, type Browser } from 'playwright-core';
import { BASE_CHROMIUM_ARGS } from '../../../host-agent/src/drivers/browser/chromium-screenshotter.ts';
import { registerBrowser } from './open-browsers.ts';

/** Debian's Chromium, headless, with the agent's flags that keep it off the (closed) network. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...BASE_CHROMIUM_ARGS],
  });
  // A failed test shows what its pages showed (tests/support/pages-on-failure.ts).
  registerBrowser(browser);
  return browser;
}
