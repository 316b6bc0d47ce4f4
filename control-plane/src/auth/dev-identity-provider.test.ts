import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { createDevIdentityProvider } from './dev-identity-provider.ts';

const make = (appUrl: string, nodeEnv: string) =>
  createDevIdentityProvider({
    appUrl,
    providerName: 'school',
    knex: {} as Knex,
    logger: pino({ level: 'silent' }),
    nodeEnv,
    cookieKeys: ['k'.repeat(32)],
  });

describe('createDevIdentityProvider', () => {
  it('refuses to exist in production', () => {
    expect(() => make('http://localhost:8080', 'production')).toThrow(/never runs in production/);
  });

  it('refuses to exist on an address others reach', () => {
    expect(() => make('https://devplein.school.test', 'development')).toThrow(/only on a loopback APP_URL/);
    expect(() => make('http://10.0.0.5:8080', 'development')).toThrow(/only on a loopback APP_URL/);
    expect(() => make('http://localhost.school.test:8080', 'development')).toThrow(/only on a loopback APP_URL/);
  });

  it('runs on loopback addresses', () => {
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:9000', 'http://[::1]:8080']) {
      expect(make(url, 'test').issuer).toBe(`${url}/dev-idp`);
    }
  });
});
