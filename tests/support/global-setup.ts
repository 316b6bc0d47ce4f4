import { BROWSER_USER, ensureSystemUser } from './fixtures/browser-user.ts';
import { pruneContainerFirewalls } from '../../host-agent/src/drivers/docker/container-firewall.ts';
import { ensureDockerEngine } from './services/docker.ts';
import { startPostgres } from './services/postgres.ts';
import { startSoketi } from './services/soketi.ts';

/*
 * Starts the throwaway services every test file may use, once per `vitest run`, and publishes
 * them as environment variables. Test workers are forked after this runs and inherit
 * process.env (checked with vitest 4.1, pool forks); tests/support/services/services.ts reads them.
 *
 * Reuse instead of start:
 *   TEST_DATABASE_URL                      an admin URL of a PostgreSQL server (tests make their own databases on it)
 *   TEST_SOKETI_HOST + TEST_SOKETI_PORT     a running soketi, with TEST_SOKETI_APP_ID, TEST_SOKETI_KEY, TEST_SOKETI_SECRET
 *
 * The Docker engine is used when it runs and started (as root) when it does not. Without one the
 * run goes on (most tests do not need it): TEST_DOCKER_UNAVAILABLE then says why, and the
 * container tests fail with that reason (tests/support/services/docker.ts requireDockerEngine).
 */

type Stop = () => Promise<void>;

const soketiVariables = ['TEST_SOKETI_APP_ID', 'TEST_SOKETI_KEY', 'TEST_SOKETI_SECRET'] as const;

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function providePostgres(): Promise<Stop | undefined> {
  if (process.env.TEST_DATABASE_URL) {
    console.log('[global-setup] PostgreSQL: using TEST_DATABASE_URL');
    return undefined;
  }
  try {
    const postgres = await startPostgres();
    process.env.TEST_DATABASE_URL = postgres.url;
    console.log(`[global-setup] PostgreSQL: started a throwaway cluster (${new URL(postgres.url).host})`);
    return () => postgres.stop();
  } catch (error) {
    throw new Error(
      `could not start a throwaway PostgreSQL: ${describeError(error)}\n` +
        'Install the PostgreSQL server (Debian: apt-get install postgresql; `npm test` does this itself as root), ' +
        'or point the tests at a server with TEST_DATABASE_URL=postgres://USER@127.0.0.1:PORT/postgres',
      { cause: error },
    );
  }
}

async function provideSoketi(): Promise<Stop | undefined> {
  if (process.env.TEST_SOKETI_HOST || process.env.TEST_SOKETI_PORT) {
    const missing = ['TEST_SOKETI_HOST', 'TEST_SOKETI_PORT', ...soketiVariables].filter((name) => !process.env[name]);
    if (missing.length > 0) {
      throw new Error(`TEST_SOKETI_HOST/TEST_SOKETI_PORT name a soketi to reuse, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`);
    }
    console.log(`[global-setup] soketi: using ${process.env.TEST_SOKETI_HOST}:${process.env.TEST_SOKETI_PORT}`);
    return undefined;
  }
  try {
    const soketi = await startSoketi();
    Object.assign(process.env, {
      TEST_SOKETI_HOST: soketi.host,
      TEST_SOKETI_PORT: String(soketi.port),
      TEST_SOKETI_APP_ID: soketi.appId,
      TEST_SOKETI_KEY: soketi.key,
      TEST_SOKETI_SECRET: soketi.secret,
    });
    console.log(`[global-setup] soketi: started on ${soketi.host}:${soketi.port}`);
    return () => soketi.stop();
  } catch (error) {
    throw new Error(
      `could not start soketi: ${describeError(error)}\n` +
        'It comes with `npm install` (@soketi/soketi); or reuse one with TEST_SOKETI_HOST, TEST_SOKETI_PORT, ' +
        'TEST_SOKETI_APP_ID, TEST_SOKETI_KEY and TEST_SOKETI_SECRET',
      { cause: error },
    );
  }
}

async function provideDocker(): Promise<Stop | undefined> {
  try {
    const engine = await ensureDockerEngine();
    console.log(`[global-setup] Docker engine: ${engine.stop ? 'started dockerd' : 'using the running engine'} (${engine.socket})`);
    return engine.stop;
  } catch (error) {
    process.env.TEST_DOCKER_UNAVAILABLE = describeError(error);
    console.warn(`[global-setup] Docker engine: not available, the container tests will fail: ${describeError(error)}`);
    return undefined;
  }
}

async function stopAll(stops: Stop[]): Promise<void> {
  const results = await Promise.allSettled(stops.reverse().map((stop) => stop()));
  for (const result of results) {
    if (result.status === 'rejected') console.error(`[global-setup] a service did not stop cleanly: ${describeError(result.reason)}`);
  }
}

/**
 * Every test agent that runs as root keeps an iptables chain per Docker network it uses
 * (host-agent/src/drivers/docker/container-firewall.ts); the tests remove their networks, the
 * chains stay. Removes the chains whose bridge is gone: never one another run still uses.
 */
async function pruneContainerFirewallChains(): Promise<void> {
  if (process.getuid?.() !== 0) return;
  try {
    const removed = await pruneContainerFirewalls('iptables');
    if (removed.length > 0) console.log(`[global-setup] removed ${removed.length} container firewall chain(s) of removed test networks`);
  } catch {
    // No iptables here: no agent could have made a chain either.
  }
}

/** vitest global setup: returns the teardown that stops what it started. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // Agents that run as root start their screenshot browser as this user (issue 16).
  ensureSystemUser(BROWSER_USER);
  const results = await Promise.allSettled([providePostgres(), provideSoketi(), provideDocker()]);
  const stops = results.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [describeError(result.reason)] : []));
  if (failures.length > 0) {
    await stopAll(stops);
    throw new Error(`test services could not start:\n- ${failures.join('\n- ')}`);
  }
  return async () => {
    await stopAll(stops);
    await pruneContainerFirewallChains();
  };
}
