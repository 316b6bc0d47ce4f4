import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The web app on a phone (issue 19): every page but the shell's own is a lazy chunk. A deep link
 * renders the page from its chunk, client-side navigation loads the next page's chunk, and a
 * student's browser never downloads an admin page. Chunk files come from the Vite manifest of
 * the build under test. Needs a built web app (npm run build -w @devplein/web).
 */

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

interface ManifestChunk {
  file: string;
  isDynamicEntry?: boolean;
}

/** Page module (e.g. src/pages/AdminUsersPage/AdminUsersPage.tsx) → its chunk file, for every lazy page of the build. */
function lazyPageChunks(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(e2e.webDist, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  return new Map(
    Object.entries(manifest)
      .filter(([key, chunk]) => key.startsWith('src/pages/') && chunk.isDynamicEntry === true)
      .map(([key, chunk]) => [key, chunk.file]),
  );
}

/** The /assets/*.js files the page requests from now on (asset paths relative to dist, like the manifest's). */
function recordScripts(page: Page): string[] {
  const scripts: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/assets/') && pathname.endsWith('.js')) scripts.push(pathname.slice(1));
  });
  return scripts;
}

describe('pages load their own code on demand', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('gives a student on a phone a deep-linked page and the next one, and never an admin page', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test', { width: 390, height: 844 }, { context: { isMobile: true, hasTouch: true } });
    const scripts = recordScripts(page);
    await page.goto(`${e2e.url}/levels`);
    await page.getByRole('heading', { name: 'Levels', level: 1 }).waitFor();
    await page.screenshot({ path: path.join(shots, 'phone-levels-lazy.png') });

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Dockers' }).click();
    await page.waitForURL(`${e2e.url}/dockers`);
    await page.getByRole('heading', { name: 'Dockers', level: 1 }).waitFor();

    const chunks = lazyPageChunks();
    expect(scripts).toContain(chunks.get('src/pages/LevelsPage/LevelsPage.tsx'));
    expect(scripts).toContain(chunks.get('src/pages/DockersPage/DockersPage.tsx'));
    const adminChunks = [...chunks].filter(([module]) => module.startsWith('src/pages/Admin')).map(([, file]) => file);
    expect(adminChunks.length).toBeGreaterThan(10);
    expect(scripts.filter((script) => adminChunks.includes(script))).toEqual([]);
    await context.close();
  });

  it('fetches a deep-linked page while the app still waits for the signed-in user, not after', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    const chunk = lazyPageChunks().get('src/pages/ProfilePage/ProfilePage.tsx');
    if (chunk === undefined) throw new Error('the build has no profile chunk');
    let releaseUser = () => {};
    const userHeld = new Promise<void>((resolve) => (releaseUser = resolve));
    await page.route(`${e2e.url}/api/user`, async (route) => {
      await userHeld;
      await route.continue();
    });
    const chunkRequested = page.waitForRequest((request) => new URL(request.url()).pathname === `/${chunk}`);
    await page.goto(`${e2e.url}/profile`);
    // Held: the app shows its splash until /api/user answers, yet the page's code is on its way.
    await chunkRequested;
    await page.getByText('devplein wordt geladen…').waitFor();
    releaseUser();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await context.close();
  });

  it('gives an admin a deep-linked admin page', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    const scripts = recordScripts(page);
    await page.goto(`${e2e.url}/admin/users`);
    await page.getByRole('heading', { name: 'Gebruikers', level: 1 }).waitFor();
    expect(scripts).toContain(lazyPageChunks().get('src/pages/AdminUsersPage/AdminUsersPage.tsx'));
    await page.screenshot({ path: path.join(shots, 'admin-users-lazy.png') });
    await context.close();
  });

  it('loads the page anew once when a page chunk of the open build is gone (a deploy meanwhile), then shows the error page', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).waitFor();
    const chunk = lazyPageChunks().get('src/pages/UsefulLinksPage/UsefulLinksPage.tsx');
    if (chunk === undefined) throw new Error('the build has no useful-links chunk');
    // The "deploy": the served build no longer has the chunk this tab would load next (no other test here opens it).
    // With it go the precompressed copies the build writes beside it (the control plane would serve those).
    for (const file of [chunk, `${chunk}.br`, `${chunk}.gz`]) rmSync(path.join(e2e.webDist, file), { force: true });
    let loads = 0;
    page.on('load', () => (loads += 1));
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Handige links' }).click();
    // The reload keeps the address; the chunk is still missing after it, so the error page ends it: no loop.
    await page.getByTestId('route-error').waitFor();
    expect(loads).toBe(1);
    expect(page.url()).toBe(`${e2e.url}/useful-links`);
    await context.close();
  });
});
