/**
 * Where the shared test services are. tests/support/global-setup.ts starts them (or takes the
 * ones named in the environment) and publishes them as TEST_* environment variables, which the
 * forked test workers inherit. Read them through these functions for a clear error when a test
 * file is run some other way.
 */

/** The soketi every test may use: loopback host, port and its one app. */
export interface TestSoketi {
  host: string;
  port: number;
  appId: string;
  key: string;
  secret: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`${name} is not set: run the tests with vitest (its global setup tests/support/global-setup.ts sets it), or set it yourself`);
  }
  return value;
}

/** Admin URL of the test PostgreSQL server, e.g. postgres://postgres@127.0.0.1:PORT/postgres. */
export function testDatabaseUrl(): string {
  return required('TEST_DATABASE_URL');
}

/** The test soketi (realtime server). */
export function testSoketi(): TestSoketi {
  return {
    host: required('TEST_SOKETI_HOST'),
    port: Number(required('TEST_SOKETI_PORT')),
    appId: required('TEST_SOKETI_APP_ID'),
    key: required('TEST_SOKETI_KEY'),
    secret: required('TEST_SOKETI_SECRET'),
  };
}
