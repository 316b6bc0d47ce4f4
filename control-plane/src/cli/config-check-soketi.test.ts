import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { soketiCheck } from './config-check-soketi.ts';

/** What devplein-soketi.service and soketi.env give soketi. */
const unitEnv = {
  SOKETI_HOST: '127.0.0.1',
  SOKETI_PORT: '6001',
  SOKETI_METRICS_HOST: '127.0.0.1',
  SOKETI_METRICS_SERVER_PORT: '9601',
  SOKETI_CLUSTER_HOST: '127.0.0.1',
  SOKETI_CLUSTER_UNICAST_ADDRESSES: '127.0.0.1',
  SOKETI_CLUSTER_PORT: '11002',
  SOKETI_DEFAULT_APP_ID: 'devplein-app',
  SOKETI_DEFAULT_APP_KEY: 'devplein-key',
  SOKETI_DEFAULT_APP_SECRET: '9f1c2a7e4b0d8f3a6c5e1b2d',
};

describe('devplein config check soketi', () => {
  it('passes the settings the unit and install.sh give it', () => {
    expect(soketiCheck.check(unitEnv)).toEqual([]);
  });

  it('names an app value soketi would read as JSON, a missing one, a default secret and a listener off loopback', () => {
    const { SOKETI_DEFAULT_APP_KEY: _key, ...withoutKey } = unitEnv;
    const problems = soketiCheck.check({ ...withoutKey, SOKETI_DEFAULT_APP_ID: '12345', SOKETI_DEFAULT_APP_SECRET: 'devplein-secret', SOKETI_HOST: '0.0.0.0', SOKETI_PORT: 'zes' });
    expect(problems.map((problem) => problem.variable)).toEqual(['SOKETI_DEFAULT_APP_ID', 'SOKETI_DEFAULT_APP_KEY', 'SOKETI_DEFAULT_APP_SECRET', 'SOKETI_HOST', 'SOKETI_PORT']);
    expect(problems[0]?.problem).toMatch(/^ongeldig; verwacht: soketi leest een getal, true, false of null als JSON/);
    expect(problems[1]?.problem).toBe('ontbreekt; verwacht: een waarde, gelijk aan die in control-plane.env');
    expect(problems[2]?.problem).toMatch(/openssl rand -hex 24/);
    expect(problems[3]?.problem).toMatch(/loopback-adres/);
    expect(problems[4]?.problem).toBe('ongeldig; verwacht: een getal');
  });
});

describe('devplein config check soketi, with the control plane\'s env file readable', () => {
  it('names each app value that differs from the control plane\'s (the secret without its value)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-check-soketi-'));
    writeFileSync(path.join(dir, 'control-plane.env'), 'REALTIME_APP_ID=devplein-app\nREALTIME_KEY=andere-sleutel\nREALTIME_SECRET=een-ander-geheim-van-24-tekens\n');
    vi.stubEnv('DEVPLEIN_CONFIG_DIR', dir);
    try {
      const problems = soketiCheck.check(unitEnv);
      expect(problems).toEqual([
        { variable: 'SOKETI_DEFAULT_APP_KEY', problem: `verschilt van REALTIME_KEY in ${path.join(dir, 'control-plane.env')} (andere-sleutel); verwacht: dezelfde waarde, anders weigert soketi de control plane` },
        { variable: 'SOKETI_DEFAULT_APP_SECRET', problem: `verschilt van REALTIME_SECRET in ${path.join(dir, 'control-plane.env')}; verwacht: dezelfde waarde, anders weigert soketi de control plane` },
      ]);
      // The same app everywhere (REALTIME_APP_ID and REALTIME_PORT by default): nothing to say.
      writeFileSync(path.join(dir, 'control-plane.env'), `REALTIME_KEY=devplein-key\nREALTIME_SECRET=${unitEnv.SOKETI_DEFAULT_APP_SECRET}\n`);
      expect(soketiCheck.check(unitEnv)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
