/**
 * The control plane refuses to start, with a message naming the variables, when sign-in or its
 * secrets are not safe: no sign-in configured at all, the development sign-in (DEV_LOGIN) on an
 * address others reach or in production, and production with the defaults or the placeholders
 * of deploy/systemd/devplein-control-plane.env. Each case runs the real entry point
 * (control-plane/src/main.ts) as a process; it must exit with 78 (EX_CONFIG) before it listens.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-startup-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs main.ts with exactly `env` (plus PATH); resolves when it exits, or with 'listening' if it starts serving. */
function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=development', 'control-plane/src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', METRICS_LISTEN: '', LOG_LEVEL: 'info', AGENT_ADDRESS: 'localhost:1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      // It started serving: the configuration was accepted.
      if (output.includes('"msg":"listening"')) child.kill('SIGKILL');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** KEY=value lines of a systemd env file. */
function envFile(relative: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of readFileSync(path.join(root, relative), 'utf8').split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(raw.trim());
    if (match) values[match[1] ?? ''] = (match[2] ?? '').replace(/^"(.*)"$/, '$1');
  }
  return values;
}

describe('start-up refusals', { timeout: 90_000 }, () => {
  it('without OIDC_ISSUER and without DEV_LOGIN: exits 78 and says what to set', async () => {
    const { code, output } = await start({ SESSION_SECRET: 'x'.repeat(40) });
    expect(output).not.toContain('"msg":"listening"');
    expect(code).toBe(78);
    expect(output).toMatch(/OIDC_ISSUER: no sign-in configured: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/);
    expect(output).toContain('DEV_LOGIN=1');
  });

  it('DEV_LOGIN=1 with an APP_URL that is not loopback: exits 78 naming DEV_LOGIN and the address', async () => {
    const { code, output } = await start({ SESSION_SECRET: 'x'.repeat(40), DEV_LOGIN: '1', APP_URL: 'https://devplein.school.nl' });
    expect(output).not.toContain('"msg":"listening"');
    expect(code).toBe(78);
    expect(output).toMatch(/DEV_LOGIN: the development sign-in runs only on a loopback APP_URL .*https:\/\/devplein\.school\.nl/);
  });

  it('the production env file as shipped (CHANGE_ME everywhere): exits 78 naming every placeholder', async () => {
    const { code, output } = await start(envFile('deploy/systemd/devplein-control-plane.env'));
    expect(output).not.toContain('"msg":"listening"');
    expect(code).toBe(78);
    for (const name of ['SESSION_SECRET', 'ENCRYPTION_KEY', 'REALTIME_SECRET', 'OIDC_CLIENT_SECRET', 'OIDC_CLIENT_ID', 'OIDC_ISSUER', 'DATABASE_URL']) {
      expect(output, name).toMatch(new RegExp(`\\n  ${name}: (is still a placeholder|still contains a placeholder)`));
    }
  });

  it('production with REALTIME_SECRET left at its default: exits 78 naming it', async () => {
    const filled = Object.fromEntries(
      Object.entries(envFile('deploy/systemd/devplein-control-plane.env')).map(([key, value]) => [
        key,
        key === 'ENCRYPTION_KEY' ? Buffer.alloc(32, 3).toString('base64') : value.replaceAll('CHANGE_ME', 'k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b'),
      ]),
    );
    const { REALTIME_SECRET: _shipped, ...withoutRealtimeSecret } = filled;
    const { code, output } = await start(withoutRealtimeSecret);
    expect(code).toBe(78);
    expect(output).toMatch(/REALTIME_SECRET: is the default value devplein-secret/);
    expect(output).not.toMatch(/SESSION_SECRET|ENCRYPTION_KEY|OIDC_CLIENT_SECRET/);
  });
});
