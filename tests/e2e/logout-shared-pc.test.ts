/**
 * A shared lab PC in Chromium: person A signs in through the school provider's account picker,
 * logs out with the top menu's Uitloggen, and the next person at the same browser who clicks
 * Inloggen must be asked who they are (and then be signed in as themselves), not be signed
 * straight back in as A by the provider's own session.
 *
 * Both ways out of the provider's session are proven: a provider with an end_session_endpoint
 * (the development provider's default: RP-initiated logout ends its session) and one without
 * (DEV_LOGIN_END_SESSION=false: the next sign-in sends prompt=login). Also screenshots of the
 * top bar with Uitloggen (a button now) at desktop and phone width, plain and hovered.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

const shots = shotsDir();

async function sideMenuLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name, exact: true });
}

/** Clicks Inloggen (side menu) and then the school sign-in link; resolves where the browser lands: the provider's picker or the app. */
async function clickInloggen(page: Page, appUrl: string): Promise<'picker' | 'signed in'> {
  await (await sideMenuLink(page, 'Inloggen')).click();
  await page.waitForURL(`${appUrl}/login`);
  await page.getByRole('link', { name: 'Inloggen met je schoolaccount' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/dev-idp/interaction/') || url.pathname === '/');
  return new URL(page.url()).pathname === '/' ? 'signed in' : 'picker';
}

async function signedInName(page: Page): Promise<string> {
  return (await page.getByTestId('top-profile').innerText()).trim();
}

/** The story of the file, against `e2e`; returns the app URLs the browser visited while logging out. */
async function sharedPc(e2e: E2eApp, context: BrowserContext): Promise<string[]> {
  const page = await context.newPage();
  await page.goto(`${e2e.url}/`);

  // Person A signs in through the account picker (no login_hint).
  expect(await clickInloggen(page, e2e.url)).toBe('picker');
  await page.getByRole('button', { name: /Sam Student/ }).click();
  await page.waitForURL(`${e2e.url}/`);
  expect(await signedInName(page)).toBe('Sam Student');

  // A logs out with the top menu's Uitloggen and lands on the home page, signed out.
  const visited: string[] = [];
  const record = (frame: Frame): void => {
    if (frame === page.mainFrame()) visited.push(frame.url());
  };
  page.on('framenavigated', record);
  await page.getByRole('navigation', { name: 'Hoofdmenu' }).getByTestId('top-logout').click();
  await (await sideMenuLink(page, 'Inloggen')).waitFor();
  page.off('framenavigated', record);
  expect(new URL(page.url()).pathname).toBe('/');
  expect(await page.evaluate(async () => (await fetch('/api/user')).status)).toBe(401);

  // The next person clicks Inloggen: asked who they are, and signed in as themselves.
  const landing = await clickInloggen(page, e2e.url);
  expect(landing, 'the next person was signed straight back in as Sam Student').toBe('picker');
  await page.getByRole('button', { name: /Olga Ontwikkelaar/ }).click();
  await page.waitForURL(`${e2e.url}/`);
  expect(await signedInName(page)).toBe('Olga Ontwikkelaar');
  return visited;
}

describe('a shared lab PC, provider with end_session_endpoint', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('logging out ends the provider’s session too: the next person gets the account picker', async () => {
    const context = await e2e.browser.newContext();
    const visited = await sharedPc(e2e, context);
    // Through the provider's logout (RP-initiated), and its session cookie is gone afterwards.
    expect(visited.some((url) => new URL(url).pathname === '/dev-idp/session/end'), visited.join('\n')).toBe(true);
    await context.close();
  });

  it('Uitloggen looks like the links beside it (desktop and phone, plain and hovered)', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test', viewport, { context: name === 'phone' ? { isMobile: true, hasTouch: true } : {} });
      const header = page.locator('header.top-bar');
      await header.screenshot({ path: path.join(shots, `topbar-logout-${name}.png`) });
      const logout = page.getByTestId('top-logout');
      // Box like Home's (both show only their icon on a phone); colour, font and padding like the
      // profile link's (Home is highlighted as the current page).
      const [logoutBox, homeBox] = [await logout.boundingBox(), await page.getByTestId('top-home').boundingBox()];
      expect(logoutBox?.height).toBe(homeBox?.height);
      expect(logoutBox?.y).toBe(homeBox?.y);
      const style = (locator: typeof logout) =>
        locator.evaluate((element) => {
          const computed = getComputedStyle(element);
          return [computed.color, computed.backgroundColor, computed.fontSize, computed.fontWeight, computed.fontFamily, computed.lineHeight, computed.borderTopWidth, computed.paddingTop, computed.paddingLeft];
        });
      expect(await style(logout)).toEqual(await style(page.getByTestId('top-profile')));
      expect(await logout.evaluate((element) => getComputedStyle(element).cursor)).toBe('pointer');
      if (name === 'desktop') {
        await logout.hover();
        await header.screenshot({ path: path.join(shots, `topbar-logout-${name}-hover.png`) });
      }
      await context.close();
    }
  });
});

describe('a shared lab PC, provider without end_session_endpoint', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp({ env: { DEV_LOGIN_END_SESSION: 'false' } });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('the next sign-in sends prompt=login: the next person gets the account picker although the provider’s session lives on', async () => {
    const context = await e2e.browser.newContext();
    const visited = await sharedPc(e2e, context);
    expect(visited.some((url) => new URL(url).pathname.startsWith('/dev-idp/session/end')), visited.join('\n')).toBe(false);
    await context.close();
  });
});
