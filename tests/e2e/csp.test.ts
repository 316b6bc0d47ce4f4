import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { makeTestCerts, agentLinkEnv } from '../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The app under its Content-Security-Policy in Chromium: every main page, signed in, raises no
 * `securitypolicyviolation` event and logs no CSP error; the realtime websocket is allowed and
 * any other connection is not; and the sign-in through the development identity provider (its
 * own pages, with the /dev-idp policy) still works. The fake agent makes a container (so the
 * dockers page subscribes over the websocket) and a VPN configuration (so the QR <img> loads).
 */

const ADMIN = 'admin@devplein.test';

let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-csp-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs });
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: 'dev.devplein.test',
      ...agentLinkEnv(agent.address, certs),
    },
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

interface Violation {
  page: string;
  directive: string;
  blocked: string;
}

/** Collects CSP violations of every page of `context`: the DOM event and Chromium's console errors. */
async function watchViolations(context: BrowserContext): Promise<{ violations: Violation[]; consoleErrors: string[] }> {
  const violations: Violation[] = [];
  const consoleErrors: string[] = [];
  await context.exposeBinding('__reportCspViolation', (_source, violation: Violation) => {
    violations.push(violation);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportCspViolation?: (v: unknown) => void }).__reportCspViolation;
      report?.({ page: location.pathname, directive: event.violatedDirective, blocked: event.blockedURI });
    });
  });
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) consoleErrors.push(message.text());
  });
  return { violations, consoleErrors };
}

/** A same-origin API call from inside the page, as the app makes it (CSRF token from the meta tag). */
async function apiFromPage(page: Page, method: string, url: string, body?: unknown): Promise<number> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
      const response = await fetch(url, {
        method,
        headers: { 'X-CSRF-TOKEN': token, 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json', Accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.status;
    },
    { method, url, body },
  );
}

/** Opens `path` and waits until the page has rendered its heading and its requests are done. */
async function visit(page: Page, pathname: string): Promise<void> {
  await page.goto(`${e2e.url}${pathname}`);
  await page.locator('h1').first().waitFor({ timeout: 15_000 });
  await page.waitForLoadState('networkidle', { timeout: 3_000 }).catch(() => undefined);
}

describe('the Content-Security-Policy in Chromium', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  it('is not violated by any main page, signed in as an admin who is a developer and as a student (through the provider\'s account chooser)', async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { violations, consoleErrors } = await watchViolations(context);
    const page = await context.newPage();
    await page.goto(`${e2e.url}/auth/school?login_hint=${encodeURIComponent(ADMIN)}`);
    await page.waitForURL(`${e2e.url}/`);

    // A container of the admin's (the dockers page subscribes to its channel over the websocket) and a VPN configuration (the QR image).
    const adminId = await e2e.userIdOf(ADMIN);
    const [project] = await e2e.database
      .knex('projects')
      .insert({ name: 'csp-site', domain: 'csp-site.dev.devplein.test', description: 'Een site voor de CSP-test van devplein.', visible: true, docker_image_id: 2, validated: true })
      .returning<{ id: number }[]>('id');
    await e2e.database.knex('project_user').insert({ project_id: project?.id, user_id: adminId, position: 0 });
    expect(await apiFromPage(page, 'POST', '/api/user/dockers', { id: project?.id })).toBe(200);
    expect(await apiFromPage(page, 'POST', '/api/vpn')).toBeLessThan(300);

    for (const pathname of ['/', '/websites', '/levels', '/profile', '/databases', '/vpn', '/dockers/create', '/admin/users', '/admin/levels', '/admin/dockers', '/admin/dockers/open']) await visit(page, pathname);

    // The dockers page (live states of the admin's container over the realtime websocket); and a
    // websocket to the page's realtime-host/port is allowed by connect-src.
    await visit(page, '/dockers');
    const realtime = await page.evaluate(() => {
      const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
      return { host: meta('realtime-host'), port: meta('realtime-port'), key: meta('realtime-key') };
    });
    const opened = await page.evaluate(
      ({ host, port, key }) =>
        new Promise<boolean>((resolve) => {
          const socket = new WebSocket(`ws://${host}:${port}/app/${key}?protocol=7`);
          socket.onopen = () => {
            socket.close();
            resolve(true);
          };
          socket.onerror = () => resolve(false);
          setTimeout(() => resolve(false), 5_000);
        }),
      realtime,
    );
    expect(opened, 'a websocket to the realtime server is allowed').toBe(true);
    // The VPN page shows the QR code as an <img> of /api/vpn/qr.
    await visit(page, '/vpn');
    const qr = page.locator('img[src="/api/vpn/qr"]');
    await qr.first().waitFor();
    await expect.poll(() => qr.first().evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

    // A student signs in by choosing an account on the development identity provider's own page
    // (inline styles allowed under /dev-idp only; a same-origin form post), then opens their pages.
    const student = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const studentWatch = await watchViolations(student);
    const studentPage = await student.newPage();
    await studentPage.goto(`${e2e.url}/auth/school`);
    await studentPage.waitForURL(/\/dev-idp\/interaction\//);
    expect(await studentPage.locator('button').first().evaluate((button) => getComputedStyle(button).display)).toBe('block');
    await studentPage.getByRole('button', { name: /student@devplein\.test/ }).click();
    await studentPage.waitForURL(`${e2e.url}/`);
    await studentPage.getByRole('link', { name: 'Sam Student' }).waitFor();
    for (const pathname of ['/levels', '/profile']) await visit(studentPage, pathname);

    expect(violations).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(studentWatch.violations).toEqual([]);
    expect(studentWatch.consoleErrors).toEqual([]);
    await student.close();
    await context.close();
  });

  it('blocks what the policy does not allow: another connection, an inline script, being framed', async () => {
    const context = await e2e.browser.newContext();
    const { violations } = await watchViolations(context);
    const page = await context.newPage();
    await page.goto(`${e2e.url}/websites`);
    await page.locator('h1').first().waitFor();
    const csp = (await page.request.get(`${e2e.url}/websites`)).headers()['content-security-policy'] ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    await page.evaluate(() => {
      try {
        new WebSocket('ws://127.0.0.1:1/');
      } catch {
        // Chromium throws a SecurityError for a blocked websocket.
      }
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true;';
      document.body.append(script);
    });
    await expect.poll(() => violations.map((violation) => violation.directive).sort()).toEqual(['connect-src', 'script-src-elem']);
    expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
    await context.close();
  });
});
