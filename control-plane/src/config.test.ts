import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from './config.ts';

describe('loadConfig', () => {
  it('uses the documented defaults: port 8080, provider short name school, the development provider', () => {
    const config = loadConfig({}, () => 'x'.repeat(40));
    expect(config.PORT).toBe(8080);
    expect(config.appUrl).toBe('http://localhost:8080');
    expect(config.OIDC_PROVIDER_NAME).toBe('school');
    expect(config.useDevIdentityProvider).toBe(true);
  });

  it('refuses production without a school identity provider, session secret and app URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/OIDC_ISSUER/);
  });

  it('accepts production with a school provider and never enables the development provider there', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      OIDC_ISSUER: 'https://login.school.test',
      OIDC_CLIENT_ID: 'devplein',
      OIDC_CLIENT_SECRET: 'secret',
      SESSION_SECRET: 's'.repeat(40),
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      APP_URL: 'https://devplein.school.test',
    });
    expect(config.useDevIdentityProvider).toBe(false);
  });

  it('opens the browsers\' websocket at REALTIME_PUBLIC_* and falls back to REALTIME_HOST/PORT/TLS per value', () => {
    const local = { SESSION_SECRET: 'x'.repeat(32), REALTIME_HOST: '127.0.0.1', REALTIME_PORT: '6001', REALTIME_TLS: 'false' };
    expect(loadConfig(local).realtimePublic).toEqual({ host: '127.0.0.1', port: 6001, tls: false });
    const behindCaddy = loadConfig({ ...local, REALTIME_PUBLIC_HOST: 'devplein.school.nl', REALTIME_PUBLIC_PORT: '443', REALTIME_PUBLIC_TLS: 'true' });
    expect(behindCaddy.realtimePublic).toEqual({ host: 'devplein.school.nl', port: 443, tls: true });
    // The control plane's own calls stay on loopback without TLS.
    expect([behindCaddy.REALTIME_HOST, behindCaddy.REALTIME_PORT, behindCaddy.REALTIME_TLS]).toEqual(['127.0.0.1', 6001, false]);
    expect(loadConfig({ ...local, REALTIME_PUBLIC_HOST: 'devplein.school.nl', REALTIME_PUBLIC_TLS: '' }).realtimePublic).toEqual({ host: 'devplein.school.nl', port: 6001, tls: false });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', APP_URL: '', PORT: '' }, () => 'x'.repeat(40));
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.appUrl).toBe('http://localhost:8080');
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc', OIDC_PROVIDER_NAME: 'Bad Name' }, () => 'x'.repeat(40))).toThrow(
      /PORT[\s\S]*OIDC_PROVIDER_NAME|OIDC_PROVIDER_NAME[\s\S]*PORT/,
    );
  });
});
