/**
 * `devplein config check` as a sysadmin and as the units run it (`npm run config-check`, the
 * repository's form of the command; the release bundle's bin/devplein runs the compiled entries,
 * compiled-servers.test.ts). By hand it reads the shipped env files and units (with this test's
 * paths for the certificates and credentials): "in orde" with exit code 0, or each wrong or
 * missing variable named with exit code 1. As ExecStartPre (--env) it runs as the service's
 * user with the environment systemd gives it, stderr on the journal's stream: every line
 * arrives as an error, and a file that user may not read is named.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEnvFile, unitEnvironment } from '../../../server-kit/src/systemd-files.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-config-check-'));
// Readable for the unprivileged user of the --env case, as /etc/devplein is.
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shipped = (relative: string): string => readFileSync(path.join(root, 'deploy/systemd', relative), 'utf8');
const write = (name: string, text: string, mode = 0o644): string => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
  return file;
};

// The files the agent's settings name, here instead of /etc/devplein.
for (const name of ['agent/ca.pem', 'agent/agent.pem', 'credentials/browser-secret', 'credentials/git-runner-secret']) write(name, 'x');
const agentKey = write('agent/agent-key.pem', 'x', 0o600);
const here = (text: string): string => text.replaceAll('/etc/devplein/', `${dir}/`);
const agentEnvText = here(shipped('devplein-agent.env')).replace(/^AGENT_MYSQL_URL=.*$/m, 'AGENT_MYSQL_URL=mysql://devplein-agent:geheim@127.0.0.1:3306/');
const agentUnit = write('devplein-agent.service', here(shipped('devplein-agent.service')));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command; `journal`: stderr on a file named by JOURNAL_STREAM; `user`: as that user (runuser). */
function check(args: string[], options: { env?: Record<string, string>; user?: string; journal?: boolean } = {}): Promise<Result> {
  const errFile = path.join(dir, `stderr-${Math.random()}`);
  const errFd = openSync(errFile, 'w');
  const { dev, ino } = fstatSync(errFd);
  const env = { PATH: process.env.PATH ?? '', ...(options.journal ? { JOURNAL_STREAM: `${dev}:${ino}` } : {}), ...options.env };
  const command = [process.execPath, '--import', 'tsx', '--conditions=development', 'scripts/config-check.ts', ...args];
  const [file, ...argv] = options.user ? ['runuser', '-u', options.user, '--', ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file ?? '', argv, { cwd: root, env, stdio: ['ignore', 'pipe', errFd] });
    closeSync(errFd);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr: readFileSync(errFile, 'utf8') }));
  });
}

describe('devplein config check', { timeout: 60_000 }, () => {
  it('by hand: the agent env file as installed, with its unit\'s Environment= and credentials, is in order', async () => {
    const env = write('agent.env', agentEnvText);
    const result = await check(['agent', '--file', env, '--unit', agentUnit]);
    expect(result).toEqual({ code: 0, stdout: `devplein config check: agent (${env}) is in orde\n`, stderr: '' });
  });

  it('by hand: a bad edit gets each wrong or missing variable named, exit code 1', async () => {
    const env = write(
      'agent-bad.env',
      agentEnvText
        .replace(/^AGENT_LISTEN=.*$/m, 'AGENT_LISTEN=overal')
        .replace(/^AGENT_TLS_CERT=.*$/m, '')
        .replace(/^AGENT_WG_FIREWALL=.*$/m, 'AGENT_WG_FIREWALL=nftables'),
    );
    const result = await check(['agent', '--file', env, '--unit', agentUnit]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`devplein config check: agent (${env}): 3 instellingen kloppen niet`);
    expect(lines.slice(1).sort()).toEqual([
      '  AGENT_LISTEN (nu "overal"): ongeldig; verwacht: expected host:port, e.g. 127.0.0.1:7443',
      '  AGENT_TLS_CERT: ontbreekt; verwacht: AGENT_TLS_CERT is required (a file path)',
      '  AGENT_WG_FIREWALL (nu "nftables"): ongeldig; verwacht: een van iptables, off',
    ]);
  });

  it('as the agent unit\'s ExecStartPre: its own environment, as its user, every line an error in the journal', async () => {
    // What systemd hands the service: the unit's Environment=, the env file, the credentials folder.
    const credentials = path.join(dir, 'run-credentials');
    mkdirSync(credentials, { recursive: true, mode: 0o755 });
    const credentialsEnv = { AGENT_BROWSER_SECRET_FILE: write('run-credentials/browser-secret', 'x'), AGENT_GIT_RUNNER_SECRET_FILE: write('run-credentials/git-runner-secret', 'x') };
    const env = { ...unitEnvironment(readFileSync(agentUnit, 'utf8'), credentials), ...parseEnvFile(agentEnvText).values, ...credentialsEnv, USER: 'nobody' };
    const result = await check(['agent', '--env'], { env, user: 'nobody', journal: true });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      '<3>devplein config check: agent (de omgeving van devplein-agent.service): 1 instelling klopt niet',
      `<3>  AGENT_TLS_KEY (nu "${agentKey}"): ${agentKey} is niet leesbaar voor gebruiker nobody`,
    ]);
    // Readable for that user: in order (on stdout, priority info).
    const good = await check(['agent', '--env'], { env: { ...env, AGENT_TLS_KEY: path.join(dir, 'agent/agent.pem') }, user: 'nobody', journal: true });
    expect(good).toEqual({ code: 0, stdout: 'devplein config check: agent (de omgeving van devplein-agent.service) is in orde\n', stderr: '' });
  });

  it('soketi: the env file install.sh writes with the shipped unit is in order; a numeric app id is named', async () => {
    const unit = write('devplein-soketi.service', shipped('devplein-soketi.service'));
    const app = 'SOKETI_DEFAULT_APP_ID=devplein-app\nSOKETI_DEFAULT_APP_KEY=devplein-key\nSOKETI_DEFAULT_APP_SECRET=9f1c2a7e4b0d8f3a6c5e1b2d\n';
    const env = write('soketi.env', `# written by install.sh\n${app}`);
    expect(await check(['soketi', '--file', env, '--unit', unit])).toEqual({ code: 0, stdout: `devplein config check: soketi (${env}) is in orde\n`, stderr: '' });
    const bad = await check(['soketi', '--file', write('soketi-bad.env', app.replace('devplein-app', '4711')), '--unit', unit]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('  SOKETI_DEFAULT_APP_ID (nu "4711"): ongeldig; verwacht: soketi leest een getal, true, false of null als JSON');
  });

  it('the control plane: the shipped env file names each placeholder, never its value', async () => {
    const env = write('control-plane.env', shipped('devplein-control-plane.env'));
    const result = await check(['control-plane', '--file', env, '--unit', path.join(dir, 'none.service')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\n {2}SESSION_SECRET \(waarde verborgen\): is nog een voorbeeldwaarde/);
    expect(result.stderr).toMatch(/\n {2}DATABASE_URL \(waarde verborgen\): is nog een voorbeeldwaarde/);
    expect(result.stderr).not.toContain('postgres://');
  });
});
