import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { createDevIdentityProvider } from './dev-identity-provider.ts';

describe('createDevIdentityProvider', () => {
  it('refuses to exist in production', () => {
    expect(() =>
      createDevIdentityProvider({
        appUrl: 'https://devplein.school.test',
        providerName: 'school',
        knex: {} as Knex,
        logger: pino({ level: 'silent' }),
        nodeEnv: 'production',
        cookieKeys: ['k'.repeat(32)],
      }),
    ).toThrow(/never runs in production/);
  });
});
