import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type ConfigCheckRole, runConfigCheck } from './config-check-cli.ts';
import { schemaProblems } from './config-problems.ts';
import { z } from 'zod';

const dir = mkdtempSync(path.join(os.tmpdir(), 'config-check-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A role whose schema wants PORT and a SECRET_FILE (the unit sets the latter, next to its credential). */
const role: ConfigCheckRole = {
  name: 'demo',
  check: (env) => schemaProblems(z.object({ PORT: z.coerce.number().int().min(1), SECRET_FILE: z.string().min(1) }), env),
};

/** Runs the command and keeps what it wrote. */
function run(argv: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const code = runConfigCheck(argv, [role]);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  const where = path.join(dir, name);
  mkdirSync(path.dirname(where), { recursive: true });
  writeFileSync(where, text);
  return where;
}

const unit = file('devplein-demo.service', '[Service]\nLoadCredential=secret:/etc/demo/secret\nEnvironment=SECRET_FILE=%d/secret\n');

describe('devplein config check', () => {
  it('says "in orde" with exit code 0 for a good env file, with its unit\'s Environment=', () => {
    const result = run(['demo', '--file', file('good.env', '# demo\nPORT=8080\n'), '--unit', unit]);
    expect(result).toEqual({ code: 0, stdout: `devplein config check: demo (${path.join(dir, 'good.env')}) is in orde\n`, stderr: '' });
  });

  it('names each wrong or missing variable, and lines that are no assignment, with exit code 1', () => {
    const env = file('bad.env', 'PORT=nul\nthis is no assignment\n');
    const result = run(['demo', '--file', env, '--unit', path.join(dir, 'no-such.service')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `devplein config check: demo (${env}): 3 instellingen kloppen niet`,
      `  ${env}:2: is geen regel NAAM=waarde; verwacht: NAAM=waarde (zonder spaties rond =) of een commentaarregel met #`,
      '  PORT (nu "nul"): ongeldig; verwacht: een getal',
      '  SECRET_FILE: ontbreekt; verwacht: een tekst',
      '',
    ]);
  });

  it('names a missing env file', () => {
    const result = run(['demo', '--file', path.join(dir, 'none.env')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${path.join(dir, 'none.env')}: het env-bestand bestaat niet`);
  });

  it('checks its own environment with --env (the units\' ExecStartPre)', () => {
    vi.stubEnv('PORT', '0');
    vi.stubEnv('SECRET_FILE', '/run/credentials/devplein-demo.service/secret');
    try {
      const result = run(['demo', '--env']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('devplein config check: demo (de omgeving van devplein-demo.service): 1 instelling klopt niet\n  PORT (nu "0"): ongeldig; verwacht: minstens 1\n');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('without a role checks each role whose env file is in the config folder, and says so when there is none', () => {
    const configDir = path.join(dir, 'etc');
    vi.stubEnv('DEVPLEIN_CONFIG_DIR', configDir);
    try {
      expect(run([])).toMatchObject({ code: 1, stderr: `devplein config check: geen instellingen gevonden (${path.join(configDir, 'demo.env')})\n` });
      file('etc/demo.env', 'PORT=80\nSECRET_FILE=/x\n');
      expect(run([])).toEqual({ code: 0, stdout: `devplein config check: demo (${path.join(configDir, 'demo.env')}) is in orde\n`, stderr: '' });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses an unknown role, two roles and options without a role with exit code 2', () => {
    expect(run(['other']).stderr).toMatch(/^devplein config check: onbekende rol other; kies uit demo\nGebruik:/);
    expect(run(['other']).code).toBe(2);
    expect(run(['demo', 'demo']).code).toBe(2);
    expect(run(['--env']).code).toBe(2);
    expect(run(['--wat']).code).toBe(2);
  });
});
