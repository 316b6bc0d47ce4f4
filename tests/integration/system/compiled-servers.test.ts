/**
 * `npm run build:servers` makes plain JavaScript of the control plane and the host agent that
 * runs with plain node (no tsx): the control plane serves, signs in through the development
 * provider (its own chunk, imported only with DEV_LOGIN) and reaches the compiled agent over mTLS;
 * `devplein admin` (control-plane/dist/cli/admin-cli.js) and `devplein backup` / `restore`
 * (dist/cli/backup-cli.js) run with plain node as well, and `devplein config check` through the
 * bundle's bin/devplein (scripts/lib/release/devplein.sh) runs the compiled checks of both.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLinkEnv, makeTestCerts, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { startSeededControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';

const root = path.resolve(import.meta.dirname, '../../..');
let workDir: string;
let agent: TestAgent | undefined;
let stack: SeededControlPlane | undefined;

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'build:servers'], { cwd: root });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-compiled-'));
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  agent = await startTestAgent({ certDir: certs.dir, compiled: true, env: { AGENT_DOCKER_NETWORK: `devplein-compiled-${process.pid}` } });
  stack = await startSeededControlPlane({ compiled: true, env: agentLinkEnv(agent.address, certs) });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await agent?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the servers built by npm run build:servers', () => {
  it('serve a signed-in student their user and dockers page, through the compiled agent', async () => {
    const session = new HttpSession(stack!.app.url);
    expect((await session.signIn('student@devplein.test')).status).toBe(200);
    const me = await session.json<{ email: string }>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('student@devplein.test');
    const dockers = await session.json<Array<{ State: string }>>('GET', '/api/user/dockers');
    expect(dockers.status).toBe(200);
    // The agent answered: no card says it was unreachable.
    expect(dockers.body.every((card) => card.State !== 'onbereikbaar')).toBe(true);
  });
});

describe('the admin command built by npm run build:servers', () => {
  it('lists the admins with plain node', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['control-plane/dist/cli/admin-cli.js', 'list'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: stack!.database.url },
    });
    expect(stdout).toContain('Anna Admin <admin@devplein.test>');
  });
});

describe('the backup command built by npm run build:servers', () => {
  it('backs up the database with plain node, and the restore of that archive opens it (refusing the filled database)', async () => {
    const key = path.join(workDir, 'backup.key');
    await writeFile(key, randomBytes(32).toString('base64'), { mode: 0o600 });
    const env = { ...process.env, DATABASE_URL: stack!.database.url, DATA_DIR: path.join(workDir, 'data'), DEVPLEIN_CONFIG_DIR: path.join(workDir, 'no-etc') };
    const { stdout } = await promisify(execFile)(process.execPath, ['control-plane/dist/cli/backup-cli.js', 'backup', '--dir', path.join(workDir, 'backups'), '--key', key], { cwd: root, env });
    const archive = /Backup gemaakt: (\S+\.backup)/.exec(stdout)?.[1];
    expect(archive, stdout).toBeDefined();
    const restore = await promisify(execFile)(process.execPath, ['control-plane/dist/cli/backup-cli.js', 'restore', archive!, '--key', key], { cwd: root, env }).catch(
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(restore).toMatchObject({ code: 3 });
    expect(restore.stdout).toContain('Backup ontsleuteld en gecontroleerd');
    expect(restore.stderr).toContain('De database is niet leeg');
  });
});

describe('devplein config check built by npm run build:servers', () => {
  it('bin/devplein runs the control plane\'s compiled check for soketi and the agent\'s for the agent', async () => {
    // A bundle's layout: bin/devplein, node/bin/node, and the compiled workspaces.
    const bundle = path.join(workDir, 'bundle');
    await mkdir(path.join(bundle, 'bin'), { recursive: true });
    await mkdir(path.join(bundle, 'node/bin'), { recursive: true });
    await copyFile(path.join(root, 'scripts/lib/release/devplein.sh'), path.join(bundle, 'bin/devplein'));
    await chmod(path.join(bundle, 'bin/devplein'), 0o755);
    await symlink(process.execPath, path.join(bundle, 'node/bin/node'));
    for (const workspace of ['control-plane', 'host-agent']) await symlink(path.join(root, workspace), path.join(bundle, workspace));
    const soketiEnv = path.join(workDir, 'soketi.env');
    await writeFile(soketiEnv, 'SOKETI_DEFAULT_APP_ID=devplein-app\nSOKETI_DEFAULT_APP_KEY=devplein-key\nSOKETI_DEFAULT_APP_SECRET=9f1c2a7e4b0d8f3a6c5e1b2d\n');
    const devplein = (args: string[]) =>
      promisify(execFile)(path.join(bundle, 'bin/devplein'), ['config', 'check', ...args], { cwd: root }).catch(
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );
    const soketi = await devplein(['soketi', '--file', soketiEnv, '--unit', 'deploy/systemd/devplein-soketi.service']);
    expect(soketi.stdout).toBe(`devplein config check: soketi (${soketiEnv}) is in orde\n`);
    const agent = await devplein(['agent', '--file', 'deploy/systemd/devplein-agent.env', '--unit', 'deploy/systemd/devplein-agent.service']);
    // This machine has none of the certificates the shipped file names.
    expect(agent).toMatchObject({ code: 1 });
    expect(agent.stderr).toContain('  AGENT_TLS_CA (nu "/etc/devplein/agent/ca.pem"): het bestand /etc/devplein/agent/ca.pem bestaat niet');
  });
});
