import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { productionEnv } from '../../../tests/support/services/control-plane-env.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { controlPlaneCheck } from './config-check-control-plane.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'config-check-cp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const production = productionEnv;

const variables = (env: Record<string, string>): string[] => controlPlaneCheck.check(env).map((problem) => problem.variable);

/** True when the control plane would start with `env` (main.ts gives a development secret outside production). */
function starts(env: Record<string, string>): boolean {
  try {
    loadConfig(env, () => 'x'.repeat(48));
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

describe('devplein config check control-plane', () => {
  it('agrees with the control plane itself: no problem exactly when it would start', () => {
    const links = path.join(dir, 'links.json');
    writeFileSync(links, JSON.stringify([{ name: 'dev1', address: 'dev1.school.test:7443', siteDomain: 'dev.school.test' }]));
    const badLinks = path.join(dir, 'bad-links.json');
    writeFileSync(badLinks, JSON.stringify([{ name: 'Dev 1', address: 'dev1.school.test:7443', siteDomain: 'dev.school.test' }]));
    const cases: Array<Record<string, string>> = [
      production,
      { DEV_LOGIN: '1' },
      {},
      { ...production, PORT: 'abc' },
      { ...production, SESSION_SECRET: 'CHANGE_ME' },
      { ...production, REALTIME_SECRET: '' },
      { ...production, DEV_LOGIN: '1' },
      { ...production, OIDC_GROUPS_CLAIM: 'groups' },
      { ...production, AGENT_LINKS_FILE: links },
      { ...production, AGENT_LINKS_FILE: badLinks },
      { ...production, LOG_LEVEL: 'loud', THUMBNAIL_CRON: 'nooit' },
      { ...production, METRICS_LISTEN: '' },
    ];
    expect(cases.map((env) => controlPlaneCheck.check(env).length === 0)).toEqual(cases.map(starts));
  });

  it('names each wrong variable once, in Dutch, placeholders as placeholders', () => {
    const problems = controlPlaneCheck.check({ ...production, PORT: 'abc', LOG_LEVEL: 'loud', SESSION_SECRET: 'CHANGE_ME', REALTIME_SECRET: 'devplein-secret' });
    expect(problems).toEqual([
      { variable: 'REALTIME_SECRET', problem: expect.stringMatching(/^is de standaardwaarde devplein-secret; productie vraagt een eigen, geheime waarde/) },
      { variable: 'SESSION_SECRET', problem: expect.stringMatching(/^is nog een voorbeeldwaarde/) },
      { variable: 'PORT', problem: 'ongeldig; verwacht: een getal' },
      { variable: 'LOG_LEVEL', problem: 'ongeldig; verwacht: een van fatal, error, warn, info, debug, trace, silent' },
    ]);
    expect(variables({ ...production, APP_URL: '' })).toEqual(['APP_URL']);
    expect(controlPlaneCheck.check({ ...production, APP_URL: '' })[0]?.problem).toBe('ontbreekt; verwacht: required in production');
  });

  it('names the files the control plane would not find, and the contents of a links file it would refuse', () => {
    const missing = path.join(dir, 'none', 'ca.pem');
    expect(controlPlaneCheck.check({ ...production, AGENT_TLS_CA: missing, AGENT_CA_KEY_FILE: dir })).toEqual([
      { variable: 'AGENT_TLS_CA', problem: `het bestand ${missing} bestaat niet` },
      { variable: 'AGENT_CA_KEY_FILE', problem: `${dir} is een map; verwacht: een bestand` },
    ]);
    const badLinks = path.join(dir, 'wrong-links.json');
    writeFileSync(badLinks, JSON.stringify([{ name: 'dev1', address: 'zonder-poort', siteDomain: 'dev.school.test' }]));
    expect(controlPlaneCheck.check({ ...production, AGENT_LINKS_FILE: badLinks })).toEqual([
      { variable: 'AGENT_LINKS_FILE', problem: expect.stringMatching(/^de inhoud klopt niet: .*\[0\.address\]: expected host:port/) },
    ]);
  });
});
