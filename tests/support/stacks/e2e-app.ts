import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { launchBrowser } from '../clients/browser.ts';
import { startControlPlane, type RunningControlPlane } from '../services/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../services/database.ts';

/*
 * What every browser test file (tests/e2e) needs before its first test: the built web app, a
 * seeded database of its own, the real control plane serving both, a Chromium, and a way to
 * sign in as one of the demo users. One place for it, so the files only say what is special
 * about them (extra seeding, environment, viewports).
 */

/**
 * Per-test timeout for browser test files (vitest's default here is 30 s). The browser files
 * share two cores with the other test files (each may run a control plane and a Chromium), so
 * a test that takes a few seconds alone can take much longer in a full parallel run. Give it to
 * every top-level `describe` of a browser test file: `describe('…', { timeout: E2E_TEST_TIMEOUT_MS }, …)`.
 */
export const E2E_TEST_TIMEOUT_MS = 60_000;

/** Viewport of a signed-in context unless the file or the call says otherwise. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 900 } as const;

export interface Viewport {
  width: number;
  height: number;
}

/**
 * A private copy of the built web app, in a new temporary directory (the caller removes it).
 *
 * Why a copy: other processes (engineers, other test areas) rebuild web/dist while tests run,
 * and a page whose hashed scripts vanish halfway never renders, so serving web/dist itself makes
 * browser tests fail at random. The copy is retried (every 0.5 s, 20 times) until it is whole:
 * index.html's scripts and stylesheets all present.
 *
 * Copies TEST_WEB_DIST instead of web/dist when that is set (e.g. a build kept elsewhere).
 */
export async function snapshotWebDist(): Promise<string> {
  const source = process.env.TEST_WEB_DIST ?? path.resolve('web/dist');
  const target = mkdtempSync(path.join(tmpdir(), 'devplein-web-dist-'));
  for (let attempt = 0; attempt < 20; attempt++) {
    rmSync(target, { recursive: true, force: true });
    try {
      cpSync(source, target, { recursive: true });
      const index = readFileSync(path.join(target, 'index.html'), 'utf8');
      const assets = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
      if (assets.length > 0 && assets.every((asset) => existsSync(path.join(target, asset)))) return target;
    } catch {
      // A build was replacing the files; try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  rmSync(target, { recursive: true, force: true });
  throw new Error(`${source} is missing or incomplete: run \`npm run build -w @devplein/web\` first`);
}

/** .tmp/shots (made if missing): where browser tests save screenshots for people to look at. */
export function shotsDir(): string {
  const shots = path.resolve('.tmp/shots');
  mkdirSync(shots, { recursive: true });
  return shots;
}

/**
 * Sends `page` through the school sign-in of the control plane at `appUrl` as `email` (the
 * development identity provider signs in the `login_hint` user at once). By default waits until
 * the app's root page is reached; `{ waitForApp: false }` returns right after the navigation,
 * for users who end up elsewhere (e.g. a not-activated account on /not_verified).
 */
export async function signIn(page: Page, appUrl: string, email: string, options: { waitForApp?: boolean } = {}): Promise<void> {
  await page.goto(`${appUrl}/auth/school?login_hint=${encodeURIComponent(email)}`);
  if (options.waitForApp ?? true) await page.waitForURL(`${appUrl}/`);
}

/** The id of the user with this e-mail address in the database behind `knex` (throws if there is none). */
export async function userIdOf(knex: Knex, email: string): Promise<number> {
  const user = await knex('users').where({ email }).first<{ id: number } | undefined>('id');
  if (!user) throw new Error(`no user ${email}`);
  return user.id;
}

export interface SignInOptions {
  /** More options for the new browser context (isMobile, acceptDownloads, ...); override the file's defaults. */
  context?: BrowserContextOptions;
  /** false: do not wait for the app's root page after signing in (see `signIn`). Default true. */
  waitForApp?: boolean;
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
}

/** What `beforeStart` gets: everything that exists before the control plane starts. */
export interface E2eSetup {
  database: TestDatabase;
  browser: Browser;
  webDist: string;
  dataDir: string;
}

export interface E2eAppOptions {
  /** More environment for the control plane (SITE_DOMAIN, ...); wins over WEB_DIST and DATA_DIR below. */
  env?: Record<string, string>;
  /** How to fill the new database; default `seedDemoData`. false: leave it as migrated. */
  seed?: false | ((knex: Knex) => Promise<unknown>);
  /** Runs after seeding and launching Chromium, before the control plane starts (extra rows, thumbnails, ...). */
  beforeStart?: (setup: E2eSetup) => Promise<void>;
  /** Default viewport of `signInAs`; default 1280×900. */
  viewport?: Viewport;
  /** Options for every context `signInAs` opens (locale, timezoneId, acceptDownloads, ...). */
  contextOptions?: BrowserContextOptions;
  /** Admin URL of the PostgreSQL server to make the database on; default the shared test server. */
  databaseServerUrl?: string;
}

export interface E2eApp {
  /** The control plane's base URL, e.g. http://localhost:41234 (no trailing slash). */
  url: string;
  database: TestDatabase;
  app: RunningControlPlane;
  browser: Browser;
  /** The private copy of web/dist the control plane serves (WEB_DIST). */
  webDist: string;
  /** The control plane's private DATA_DIR (course files, session secret, ...), unless `env.DATA_DIR` named another. */
  dataDir: string;
  /**
   * A new browser context (the file's default viewport and context options, or `viewport`),
   * signed in as `email` through the real school sign-in flow; waits for the app's root page.
   * Close the context at the end of the test.
   */
  signInAs(email: string, viewport?: Viewport, options?: SignInOptions): Promise<SignedIn>;
  /** The id of the user with this e-mail address (throws if there is none). */
  userIdOf(email: string): Promise<number>;
  /** Stops the control plane, closes Chromium, drops the database and removes the temporary directories (every step, even after a failing one). */
  stop(): Promise<void>;
}

/**
 * Starts a browser test file's application, for `beforeAll`; call `stop()` in `afterAll`.
 *
 * In order: a private copy of web/dist (see `snapshotWebDist`), a database of its own on the
 * test server (`createTestDatabase`) filled by `seed` (default `seedDemoData`), a private
 * DATA_DIR (so nothing is shared with another run on the same port), Chromium, then
 * `beforeStart`, then the real control plane (`startControlPlane`) with WEB_DIST and DATA_DIR
 * pointing at those copies plus `env`. If any step fails, what was already started is stopped
 * again before the error is thrown.
 */
export async function startE2eApp(options: E2eAppOptions = {}): Promise<E2eApp> {
  const cleanups: Array<() => Promise<void> | void> = [];
  let stopping: Promise<void> | undefined;
  // Last started, first stopped; every step runs even if an earlier one fails.
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const errors: unknown[] = [];
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) throw new AggregateError(errors, 'stopping the e2e app failed');
    })();
    return stopping;
  };

  try {
    const webDist = await snapshotWebDist();
    cleanups.push(() => rmSync(webDist, { recursive: true, force: true }));
    const dataDir = options.env?.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'devplein-e2e-data-'));
    if (options.env?.DATA_DIR === undefined) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    const database = await createTestDatabase(options.databaseServerUrl ? { serverUrl: options.databaseServerUrl } : {});
    cleanups.push(() => database.destroy());
    if (options.seed !== false) await (options.seed ?? seedDemoData)(database.knex);

    const browser = await launchBrowser();
    cleanups.push(() => browser.close());

    await options.beforeStart?.({ database, browser, webDist, dataDir });

    const app = await startControlPlane({
      databaseUrl: database.url,
      env: { WEB_DIST: webDist, DATA_DIR: dataDir, ...options.env },
    });
    cleanups.push(() => app.stop());

    const defaultViewport = options.viewport ?? DEFAULT_VIEWPORT;
    return {
      url: app.url,
      database,
      app,
      browser,
      webDist,
      dataDir,
      async signInAs(email, viewport = defaultViewport, signInOptions = {}) {
        const context = await browser.newContext({ ...options.contextOptions, viewport, ...signInOptions.context });
        const page = await context.newPage();
        await signIn(page, app.url, email, { waitForApp: signInOptions.waitForApp });
        return { context, page };
      },
      userIdOf: (email) => userIdOf(database.knex, email),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
