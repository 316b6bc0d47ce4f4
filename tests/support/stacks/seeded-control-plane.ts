/**
 * The set-up most integration tests of the control plane share: a database of their own with
 * the demo data, the real control plane on it (its own process, as `npm start`), and a signed-in
 * session per account. Call it at the top of a test file (or inside a describe): it registers
 * the beforeAll that starts it all and the afterAll that stops it; its fields are there from
 * the first test on.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect } from 'vitest';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../services/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../services/database.ts';
import { HttpSession } from '../clients/http-session.ts';

export interface SeededControlPlaneOptions<Role extends string> {
  /** The accounts to sign in (role → e-mail), all at once after the start, and an `anonymous` session with a CSRF token. */
  accounts?: Record<Role, string>;
  /** The control plane's extra environment. */
  env?: Record<string, string>;
  /** Rows of the test's own (and look-ups of the demo data), after the demo data and before the control plane starts. */
  seed?: (knex: Knex) => Promise<void>;
  /**
   * What the control plane needs running or made first (a fake agent, a data folder), after the
   * seed; the environment it returns goes over `env`, as its addresses are only known then.
   */
  before?: () => Promise<Record<string, string> | void>;
  /**
   * The cleanup of `before`, after the control plane stopped and before the database goes. It
   * runs also when the start failed part way, so it must cope with what was never made.
   */
  after?: () => Promise<void>;
}

export interface SeededControlPlane<Role extends string> {
  readonly database: TestDatabase;
  readonly app: RunningControlPlane;
  /** With `accounts`: a session per account, signed in, and `anonymous` (a CSRF token, no sign-in). Filled in beforeAll. */
  readonly sessions: Record<Role | 'anonymous', HttpSession>;
}

/** Registers the start (beforeAll) and the stop (afterAll) of a seeded control plane. */
export function seededControlPlane<Role extends string = never>(options: SeededControlPlaneOptions<Role> = {}): SeededControlPlane<Role> {
  let database: TestDatabase | undefined;
  let app: RunningControlPlane | undefined;
  const sessions = {} as Record<Role | 'anonymous', HttpSession>;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedDemoData(database.knex);
    await options.seed?.(database.knex);
    const env = { ...options.env, ...(await options.before?.()) };
    app = await startControlPlane({ databaseUrl: database.url, env });
    if (!options.accounts) return;
    // With accounts only: a test without them makes its own sessions (some count them).
    const url = app.url;
    sessions.anonymous = new HttpSession(url);
    await sessions.anonymous.primeCsrf();
    const accounts = Object.entries(options.accounts) as Array<[Role, string]>;
    await Promise.all(
      accounts.map(async ([role, email]) => {
        const session = new HttpSession(url);
        const landing = await session.signIn(email);
        expect(landing.status, `sign-in of ${email}`).toBe(200);
        sessions[role] = session;
      }),
    );
  });

  afterAll(async () => {
    await app?.stop();
    await options.after?.();
    await database?.destroy();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the seeded control plane's ${what} is there from beforeAll on`);
    return value;
  };
  return {
    get database() {
      return started(database, 'database');
    },
    get app() {
      return started(app, 'control plane');
    },
    sessions,
  };
}
