import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { productionEnv } from '../../tests/support/services/control-plane-env.ts';
import { dbAdminOnAppOrigin, loadConfig, ConfigError, isPlaceholderSecret } from './config.ts';

const production = productionEnv;

/** The message of the ConfigError `load` throws (fails the test when it does not throw). */
function refusal(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted it');
}

describe('loadConfig', () => {
  it('uses the documented defaults: port 8080, provider short name school, idle timeout 60 minutes', () => {
    const config = loadConfig({ DEV_LOGIN: '1' }, () => 'x'.repeat(40));
    expect(config.PORT).toBe(8080);
    expect(config.appUrl).toBe('http://localhost:8080');
    expect(config.OIDC_PROVIDER_NAME).toBe('school');
    expect(config.useDevIdentityProvider).toBe(true);
    expect(config.sessionMaxAgeMs).toBe(12 * 3_600_000);
    expect(config.sessionIdleTimeoutMs).toBe(60 * 60_000);
    expect(config.DEV_LOGIN_END_SESSION).toBe(true);
  });

  it('takes SESSION_IDLE_TIMEOUT_MINUTES (fractions too, for tests), never 0', () => {
    expect(loadConfig({ DEV_LOGIN: '1', SESSION_IDLE_TIMEOUT_MINUTES: '15' }, () => 'x'.repeat(40)).sessionIdleTimeoutMs).toBe(15 * 60_000);
    expect(loadConfig({ DEV_LOGIN: '1', SESSION_IDLE_TIMEOUT_MINUTES: '0.05' }, () => 'x'.repeat(40)).sessionIdleTimeoutMs).toBe(3000);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', SESSION_IDLE_TIMEOUT_MINUTES: '0' }, () => 'x'.repeat(40)))).toMatch(/SESSION_IDLE_TIMEOUT_MINUTES/);
  });

  it('refuses to start without any sign-in: neither OIDC_ISSUER nor DEV_LOGIN, and says what to set', () => {
    const message = refusal(() => loadConfig({}, () => 'x'.repeat(40)));
    expect(message).toMatch(/OIDC_ISSUER: no sign-in configured/);
    expect(message).toMatch(/OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/);
    expect(message).toMatch(/DEV_LOGIN=1/);
  });

  it('runs the development sign-in only with DEV_LOGIN, never beside a school provider', () => {
    expect(loadConfig({ OIDC_ISSUER: 'https://login.school.test', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }, () => 'x'.repeat(40)).useDevIdentityProvider).toBe(false);
    expect(loadConfig({ DEV_LOGIN: 'true' }, () => 'x'.repeat(40)).useDevIdentityProvider).toBe(true);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_ISSUER: 'https://login.school.test', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }, () => 'x'.repeat(40)))).toMatch(
      /DEV_LOGIN: DEV_LOGIN=1 and OIDC_ISSUER exclude each other/,
    );
  });

  it('runs the development sign-in only on a loopback APP_URL and HOST', () => {
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:9000', 'http://[::1]:8080', 'https://localhost:8443']) {
      expect(loadConfig({ DEV_LOGIN: '1', APP_URL: url }, () => 'x'.repeat(40)).useDevIdentityProvider, url).toBe(true);
    }
    for (const url of ['https://devplein.school.nl', 'http://192.168.1.20:8080', 'http://localhost.school.nl:8080']) {
      const message = refusal(() => loadConfig({ DEV_LOGIN: '1', APP_URL: url }, () => 'x'.repeat(40)));
      expect(message, url).toMatch(/DEV_LOGIN: the development sign-in runs only on a loopback APP_URL/);
      expect(message, url).toContain(url);
    }
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', HOST: '0.0.0.0' }, () => 'x'.repeat(40)))).toMatch(/DEV_LOGIN: .*HOST is a loopback address.*not 0\.0\.0\.0/);
  });

  it('never runs the development sign-in in production', () => {
    const { OIDC_ISSUER: _issuer, OIDC_CLIENT_ID: _id, OIDC_CLIENT_SECRET: _secret, ...withoutProvider } = production;
    expect(refusal(() => loadConfig({ ...withoutProvider, APP_URL: 'http://localhost:8080', DEV_LOGIN: '1' }))).toMatch(/DEV_LOGIN: the development sign-in never runs in production/);
  });

  it('refuses production without a school identity provider, session secret and app URL', () => {
    const message = refusal(() => loadConfig({ NODE_ENV: 'production' }));
    expect(message).toMatch(/OIDC_ISSUER/);
    expect(message).toMatch(/SESSION_SECRET: required in production/);
    expect(message).toMatch(/APP_URL: required in production/);
  });

  it('accepts production with a school provider and secrets of its own', () => {
    const config = loadConfig(production);
    expect(config.useDevIdentityProvider).toBe(false);
  });

  it('refuses production with default or placeholder secrets, naming each one at once', () => {
    const message = refusal(() =>
      loadConfig({
        ...production,
        REALTIME_SECRET: undefined,
        SESSION_SECRET: 'CHANGE_ME',
        ENCRYPTION_KEY: 'CHANGE_ME',
        OIDC_CLIENT_SECRET: '<client-secret-value>',
        DB_ADMIN_SIGNON_URL: 'https://phpmyadmin.school.test/devplein-signon.php',
        DB_ADMIN_SIGNON_SECRET: 'change-me-change-me-change-me-change-me',
      }),
    );
    expect(message).toMatch(/REALTIME_SECRET: is the default value devplein-secret/);
    expect(message).toMatch(/SESSION_SECRET: is still a placeholder/);
    expect(message).toMatch(/ENCRYPTION_KEY: is still a placeholder/);
    expect(message).toMatch(/OIDC_CLIENT_SECRET: is still a placeholder/);
    expect(message).toMatch(/DB_ADMIN_SIGNON_SECRET: is still a placeholder/);
    // One line per variable: the placeholder says it, not also the length rule.
    expect(message).not.toMatch(/SESSION_SECRET: Too small/);
    for (const [name, value] of [
      ['REALTIME_SECRET', 'devplein-secret'],
      ['OIDC_CLIENT_SECRET', 'secret'],
      ['OIDC_CLIENT_SECRET', 'devplein-dev-secret'],
      ['SESSION_SECRET', 'voorbeeld-voorbeeld-voorbeeld-voorbeeld'],
      ['OIDC_ISSUER', 'https://login.microsoftonline.com/CHANGE_ME/v2.0'],
      ['OIDC_CLIENT_ID', 'CHANGE_ME'],
      ['DATABASE_URL', 'postgres://devplein:CHANGE_ME@127.0.0.1:5432/devplein'],
    ] as const) {
      expect(refusal(() => loadConfig({ ...production, [name]: value })), `${name}=${value}`).toContain(`${name}: `);
    }
    // Outside production the defaults are fine (npm start, tests).
    expect(loadConfig({ DEV_LOGIN: '1' }, () => 'x'.repeat(40)).REALTIME_SECRET).toBe('devplein-secret');
  });

  it("names the phpMyAdmin settings on the control plane's origin (the sign-on page always, its link in production), to warn at start without refusing an upgraded install", () => {
    const local = { DEV_LOGIN: '1', SESSION_SECRET: 'x'.repeat(32), DB_ADMIN_SIGNON_SECRET: 'k'.repeat(40) };
    expect(dbAdminOnAppOrigin(loadConfig({ ...local, DB_ADMIN_SIGNON_URL: 'http://localhost:8080/phpmyadmin/devplein-signon.php' }))).toEqual([
      'DB_ADMIN_SIGNON_URL (http://localhost:8080/phpmyadmin/devplein-signon.php): ' + "phpMyAdmin must be on an origin of its own (its own host name, or port), not APP_URL's (http://localhost:8080)",
    ]);
    // Another port is another origin (npm start); so is another host name.
    expect(dbAdminOnAppOrigin(loadConfig({ ...local, DB_ADMIN_SIGNON_URL: 'http://localhost:8081/devplein-signon.php' }))).toEqual([]);
    expect(dbAdminOnAppOrigin(loadConfig({ ...production, DB_ADMIN_URL: 'https://phpmyadmin.school.test/', DB_ADMIN_SIGNON_URL: 'https://phpmyadmin.school.test/devplein-signon.php', DB_ADMIN_SIGNON_SECRET: 'k'.repeat(40) }))).toEqual([]);
    for (const url of ['/phpmyadmin/', 'https://devplein.school.test/phpmyadmin/']) {
      // An env file from before (DB_ADMIN_URL=/phpmyadmin/) still loads: the control plane starts and warns.
      const config = loadConfig({ ...production, DB_ADMIN_URL: url });
      expect(dbAdminOnAppOrigin(config), url).toEqual([expect.stringMatching(/^DB_ADMIN_URL \(.*\): phpMyAdmin must be on an origin of its own/)]);
    }
    // Outside production the relative default stays (tests, a laptop without phpMyAdmin).
    expect(loadConfig(local).DB_ADMIN_URL).toBe('/phpmyadmin/');
    expect(dbAdminOnAppOrigin(loadConfig(local))).toEqual([]);
  });

  it('tells placeholders from secrets', () => {
    for (const value of ['CHANGE_ME', 'change-me', 'ChangeMe', '<secret>', 'devplein-secret', 'secret']) expect(isPlaceholderSecret(value), value).toBe(true);
    for (const value of ['9f1c2a7e4b0d8f3a6c5e1b2d', Buffer.alloc(32, 7).toString('base64'), 'k3y-of-the-school']) expect(isPlaceholderSecret(value), value).toBe(false);
  });

  it('opens the browsers\' websocket at REALTIME_PUBLIC_* and falls back to REALTIME_HOST/PORT/TLS per value', () => {
    const local = { DEV_LOGIN: '1', SESSION_SECRET: 'x'.repeat(32), REALTIME_HOST: '127.0.0.1', REALTIME_PORT: '6001', REALTIME_TLS: 'false' };
    expect(loadConfig(local).realtimePublic).toEqual({ host: '127.0.0.1', port: 6001, tls: false });
    const behindCaddy = loadConfig({ ...local, REALTIME_PUBLIC_HOST: 'devplein.school.nl', REALTIME_PUBLIC_PORT: '443', REALTIME_PUBLIC_TLS: 'true' });
    expect(behindCaddy.realtimePublic).toEqual({ host: 'devplein.school.nl', port: 443, tls: true });
    // The control plane's own calls stay on loopback without TLS.
    expect([behindCaddy.REALTIME_HOST, behindCaddy.REALTIME_PORT, behindCaddy.REALTIME_TLS]).toEqual(['127.0.0.1', 6001, false]);
    expect(loadConfig({ ...local, REALTIME_PUBLIC_HOST: 'devplein.school.nl', REALTIME_PUBLIC_TLS: '' }).realtimePublic).toEqual({ host: 'devplein.school.nl', port: 6001, tls: false });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ DEV_LOGIN: '1', DATABASE_URL: '', APP_URL: '', PORT: '' }, () => 'x'.repeat(40));
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.appUrl).toBe('http://localhost:8080');
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ DEV_LOGIN: '1', PORT: 'abc', OIDC_PROVIDER_NAME: 'Bad Name' }, () => 'x'.repeat(40))).toThrow(
      /PORT[\s\S]*OIDC_PROVIDER_NAME|OIDC_PROVIDER_NAME[\s\S]*PORT/,
    );
  });

  it('reads INITIAL_ADMIN_EMAILS as a lowercased list: spaces, empty entries and repeats dropped; none by default', () => {
    const withoutAny = loadConfig({ DEV_LOGIN: '1' }, () => 'x'.repeat(40));
    expect(withoutAny.INITIAL_ADMIN_EMAILS).toEqual([]);
    expect(loadConfig({ DEV_LOGIN: '1', INITIAL_ADMIN_EMAILS: '' }, () => 'x'.repeat(40)).INITIAL_ADMIN_EMAILS).toEqual([]);
    const config = loadConfig(
      { DEV_LOGIN: '1', INITIAL_ADMIN_EMAILS: ' Beheerder@School.nl, ict@school.nl,,beheerder@school.nl , ' },
      () => 'x'.repeat(40),
    );
    expect(config.INITIAL_ADMIN_EMAILS).toEqual(['beheerder@school.nl', 'ict@school.nl']);
  });

  it('reads GIT_ALLOWED_HOSTS entries with the one port they allow, and refuses bad ports (issue 35)', () => {
    const load = (hosts: string) => loadConfig({ DEV_LOGIN: '1', GIT_ALLOWED_HOSTS: hosts }, () => 'x'.repeat(40));
    expect(load(' Git.School.nl, git.school.nl:2222 ,github.com').GIT_ALLOWED_HOSTS).toEqual(['git.school.nl', 'git.school.nl:2222', 'github.com']);
    for (const bad of ['git.school.nl:0', 'git.school.nl:70000', 'git.school.nl:', 'git.school.nl:22:23', 'https://git.school.nl']) expect(refusal(() => load(bad)), bad).toMatch(/GIT_ALLOWED_HOSTS/);
  });

  it('names a malformed address in INITIAL_ADMIN_EMAILS', () => {
    const message = refusal(() => loadConfig({ DEV_LOGIN: '1', INITIAL_ADMIN_EMAILS: 'beheerder@school.nl;ict@school.nl' }, () => 'x'.repeat(40)));
    expect(message).toMatch(/INITIAL_ADMIN_EMAILS\.0: not an e-mail address: beheerder@school\.nl;ict@school\.nl/);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', INITIAL_ADMIN_EMAILS: 'ict@school.nl, beheerder' }, () => 'x'.repeat(40)))).toMatch(
      /INITIAL_ADMIN_EMAILS\.1: not an e-mail address: beheerder/,
    );
  });

  it('has no group sync unless OIDC_GROUPS_CLAIM is set, and wants the claim and the file together', () => {
    expect(loadConfig({ DEV_LOGIN: '1' }, () => 'x'.repeat(40)).groupSync).toBeNull();
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'groups' }, () => 'x'.repeat(40)))).toMatch(/OIDC_GROUPS_MAPPING_FILE: required with OIDC_GROUPS_CLAIM/);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_MAPPING_FILE: '/etc/x.json' }, () => 'x'.repeat(40)))).toMatch(/OIDC_GROUPS_CLAIM: required with OIDC_GROUPS_MAPPING_FILE/);
  });

  it('reads and checks the group mapping file at start: a bad one stops the start naming the file and the field', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'groups-'));
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ mappings: [{ value: 'klas-sd25', cohort: 'sd25' }] }));
    const config = loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'realm_access.roles', OIDC_GROUPS_MAPPING_FILE: good }, () => 'x'.repeat(40));
    expect(config.groupSync?.claim).toBe('realm_access.roles');
    expect(config.groupSync?.mapping.entries).toEqual([{ value: 'klas-sd25', cohort: 'SD25' }]);

    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ mappings: [{ value: 'klas-sd25', cohort: 'SD 25' }] }));
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'groups', OIDC_GROUPS_MAPPING_FILE: bad }, () => 'x'.repeat(40)))).toMatch(
      new RegExp(`OIDC_GROUPS_MAPPING_FILE ${bad}: mappings\\[0\\]\\.cohort \\(value "klas-sd25"\\): a cohort has`),
    );
    writeFileSync(bad, '{ "mappings": [\n  { "value": "a" \n');
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'groups', OIDC_GROUPS_MAPPING_FILE: bad }, () => 'x'.repeat(40)))).toMatch(/not valid JSON/);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'groups', OIDC_GROUPS_MAPPING_FILE: path.join(dir, 'none.json') }, () => 'x'.repeat(40)))).toMatch(/cannot be read/);
    expect(refusal(() => loadConfig({ DEV_LOGIN: '1', OIDC_GROUPS_CLAIM: 'groups claim', OIDC_GROUPS_MAPPING_FILE: good }, () => 'x'.repeat(40)))).toMatch(/OIDC_GROUPS_CLAIM: use a claim name/);
  });
});
