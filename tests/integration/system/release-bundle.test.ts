/**
 * `npm run release` builds devplein-<version>.tar.gz that runs on its own: built here with a
 * throwaway signing key, unpacked in an empty folder outside the repository, and started from
 * there with the node it carries and nothing of the repository (a plain system PATH, no
 * NODE_OPTIONS): the control plane against an empty PostgreSQL database (so the bundle's
 * migrations run), linked over mutual TLS to the bundle's agent, the bundle's soketi delivering
 * an event on a private channel, and `devplein admin`. Also: no TypeScript and no development
 * dependency inside, and the checksum and signature verify (a changed tarball does not).
 * About a minute on 2 cores (alone), most of it building the release (and gzip of ~400 MB).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../../control-plane/src/db/migration-source.ts';
import { soketiLaunch } from '../../../scripts/lib/soketi.ts';
import { SIGNATURE_NAMESPACE } from '../../../scripts/lib/release/sign.ts';
import { serverNode, soketiNode } from '../../../scripts/lib/release/node-runtime.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { startOutsideProvider, type OutsideProvider } from '../../support/services/outside-provider.ts';
import { findFreePort, waitFor, waitForHttp } from '../../support/clients/ports.ts';
import { PusherClient, triggerAndReceive, type RealtimeApp } from '../../support/clients/realtime-event.ts';
import { startBundleCommand, type BundleProcess } from '../../support/stacks/release-bundle.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

let version: string;
let outDir: string;
let installDir: string;
let bundle: string;
let tarball: string;
let allowedSigners: string;
const signer = 'release@devplein.test';
const started: BundleProcess[] = [];
/** soketi's config folders (soketiLaunch makes one per soketi). */
const soketiDirs: string[] = [];
let database: TestDatabase | undefined;
let provider: OutsideProvider | undefined;

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => !entry.isDirectory()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

beforeAll(async () => {
  version = (JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  outDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-release-'));
  const keyDir = path.join(outDir, 'key');
  await mkdir(keyDir);
  const key = path.join(keyDir, 'release-key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', signer, '-f', key]);
  allowedSigners = path.join(keyDir, 'allowed_signers');
  await writeFile(allowedSigners, `${signer} ${await readFile(`${key}.pub`, 'utf8')}`);

  await run('npm', ['run', '--silent', 'release', '--', '--out', outDir], {
    cwd: root,
    env: { ...process.env, DEVPLEIN_RELEASE_KEY: key },
    maxBuffer: 16 * 1024 * 1024,
  });
  tarball = path.join(outDir, `devplein-${version}.tar.gz`);

  // A clean folder outside the repository: nothing there resolves the repository's node_modules.
  installDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-installed-'));
  await run('tar', ['-xzf', tarball, '-C', installDir]);
  bundle = path.join(installDir, `devplein-${version}`);
}, 600_000);

afterAll(async () => {
  for (const process_ of started.reverse()) await process_.stop();
  await database?.destroy();
  await provider?.close();
  for (const dir of [outDir, installDir, ...soketiDirs]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the release bundle', () => {
  it('holds no TypeScript and no development dependency', async () => {
    const files = await filesUnder(bundle);
    expect(files.length).toBeGreaterThan(1000);
    expect(files.filter((file) => /\.[cm]?tsx?$/.test(file))).toEqual([]);
    const packageFolders = new Set(files.map((file) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]).filter((name) => name !== undefined));
    // What only the repository's development needs: compilers, bundlers, test runners, linters, type packages.
    const development = [...packageFolders].filter((name) => /^(?:typescript|tsx|esbuild|vite|vitest|eslint|typescript-eslint|@types\/.*|@vitest\/.*|@eslint\/.*|fast-check|autocannon|pino-pretty|@bufbuild\/buf.*)$/.test(name));
    expect(development).toEqual([]);
    // What the servers import at run time is there (a sample of both trees).
    for (const name of ['playwright-core', 'dockerode', '@grpc/grpc-js', '@electric-sql/pglite', 'oidc-provider']) expect(packageFolders).toContain(name);
    expect(existsSync(path.join(bundle, 'soketi/node_modules/@soketi/soketi/bin/server.js'))).toBe(true);
    for (const part of ['web/dist/index.html', 'deploy/systemd/devplein-control-plane.service', 'deploy/systemd/devplein-git.service', 'deploy/certs/make-certs.sh', 'CHANGELOG.md']) {
      expect(existsSync(path.join(bundle, part)), part).toBe(true);
    }
    expect(await readFile(path.join(bundle, 'CHANGELOG.md'), 'utf8')).toContain(`## ${version}`);
    // The sysadmin's first command, at the top of the bundle.
    const install = await run(path.join(bundle, 'install.sh'), ['--help']);
    expect(install.stdout).toContain('install.sh control-plane|agent');
  });

  it('installs with install.sh --signer from beside its tarball (the unpacked tree checked against it); the installed devplein upgrade refuses it again', async () => {
    if (process.getuid?.() !== 0) throw new Error('install.sh runs as root: run this test as root');
    // As a sysadmin has it: the tarball, its .sha256 and .sig beside the unpacked folder.
    for (const suffix of ['', '.sha256', '.sig']) await symlink(`${tarball}${suffix}`, path.join(installDir, `devplein-${version}.tar.gz${suffix}`));
    const root = path.join(installDir, 'root');
    await mkdir(path.join(root, 'etc'), { recursive: true });
    for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
      const lines = (await readFile(`/etc/${file}`, 'utf8')).split('\n').filter((line) => !line.startsWith('devplein'));
      await writeFile(path.join(root, 'etc', file), lines.join('\n'), { mode: 0o600 });
    }
    const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };
    const signerLine = (await readFile(allowedSigners, 'utf8')).trim();
    const began = Date.now();
    const installed = await run(path.join(bundle, 'install.sh'), ['control-plane', '--root', root, '--no-start', '--packages=skip', '--signer', signerLine], { env, maxBuffer: 16 * 1024 * 1024 });
    console.log(`install.sh control-plane of the real bundle, signature and tree checked: ${((Date.now() - began) / 1000).toFixed(1)} s`);
    expect(installed.stdout).toContain(`goed ondertekend door ${signer}`);
    expect(installed.stdout).toMatch(/gelijk aan de tarball/);
    expect(await readFile(path.join(root, 'etc/devplein/release-signers'), 'utf8')).toContain(`${signer} namespaces="${SIGNATURE_NAMESPACE}" ssh-ed25519 `);
    const again = await run(path.join(root, 'opt/devplein/current/bin/devplein'), ['upgrade', '--root', root, tarball], { env }).catch((error: { code?: number; stderr?: string }) => error);
    expect('code' in again ? again.code : 0).toBe(4);
    expect(again.stderr).toContain(`versie ${version} is al geïnstalleerd`);
  }, 120_000);

  it('carries Node 24 for the servers and Node 20 for soketi', async () => {
    expect((await run(path.join(bundle, 'node/bin/node'), ['-p', 'process.version'])).stdout.trim()).toBe(`v${serverNode.version}`);
    expect(serverNode.version).toMatch(/^24\./);
    expect((await run(path.join(bundle, 'soketi/node/bin/node'), ['-p', 'process.version'])).stdout.trim()).toBe(`v${soketiNode.version}`);
  });

  it("carries the NAN addons (ssh2's crypto, cpu-features) built for its Node 24, which loads them", async () => {
    const node = path.join(bundle, 'node/bin/node');
    for (const addon of ['node_modules/ssh2/lib/protocol/crypto/build/Release/sshcrypto.node', 'node_modules/cpu-features/build/Release/cpufeatures.node']) {
      expect(existsSync(path.join(bundle, addon)), addon).toBe(true);
      await run(node, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', path.join(bundle, addon)]);
    }
    // ssh2 takes its native AES-GCM (not its JavaScript fallback) when the build loads.
    const { stdout } = await run(node, ['-p', "require('ssh2/lib/protocol/crypto.js').bindingAvailable"], { cwd: bundle });
    expect(stdout.trim()).toBe('true');
  });

  it('has a checksum and a signature that verify, and that a changed tarball fails', async () => {
    const { stdout } = await run('sha256sum', ['-c', `devplein-${version}.tar.gz.sha256`], { cwd: outDir });
    expect(stdout.trim()).toBe(`devplein-${version}.tar.gz: OK`);
    const verify = (file: string) =>
      run('sh', ['-c', 'ssh-keygen -Y verify -f "$1" -I "$2" -n "$3" -s "$4" < "$5"', 'verify', allowedSigners, signer, SIGNATURE_NAMESPACE, `${tarball}.sig`, file]);
    expect((await verify(tarball)).stdout).toContain(`Good "${SIGNATURE_NAMESPACE}" signature for ${signer}`);

    const changed = path.join(outDir, 'changed.tar.gz');
    await copyFile(tarball, changed);
    await appendFile(changed, Buffer.from([0]));
    await expect(verify(changed)).rejects.toThrow();
    const [published] = (await readFile(`${tarball}.sha256`, 'utf8')).split(' ');
    const [actual] = (await run('sha256sum', [changed])).stdout.split(' ');
    expect(actual).not.toBe(published);
  });
});

describe('started from the unpacked bundle', () => {
  let realtime: RealtimeApp;
  let controlPlaneUrl: string;
  let agentHealth: string;
  let controlPlane: BundleProcess;
  let agent: BundleProcess;
  let soketi: BundleProcess;
  let work: string;

  beforeAll(async () => {
    work = path.join(installDir, 'run');
    await mkdir(work);
    // The bundle's own certificate script makes the agent link's certificates.
    const certs = path.join(work, 'certs');
    await run('bash', [path.join(bundle, 'deploy/certs/make-certs.sh'), certs]);

    const suffix = randomBytes(4).toString('hex');
    realtime = { host: '127.0.0.1', port: await findFreePort(), appId: `app-${suffix}`, key: `key-${suffix}`, secret: `secret-${suffix}` };
    const launch = await soketiLaunch({ ...realtime, clusterPort: await findFreePort(), metricsPort: await findFreePort(), shutdownGracePeriodMs: 200 });
    soketiDirs.push(launch.workDir);
    soketi = startBundleCommand(bundle, ['soketi', ...launch.args.slice(launch.args.indexOf('--config'))], { cwd: launch.workDir, env: launch.env });
    started.push(soketi);

    const agentPort = await findFreePort();
    const agentMetricsPort = await findFreePort();
    agentHealth = `http://127.0.0.1:${agentMetricsPort}/healthz`;
    agent = startBundleCommand(bundle, ['agent'], {
      cwd: work,
      env: {
        AGENT_LISTEN: `127.0.0.1:${agentPort}`,
        AGENT_TLS_CA: path.join(certs, 'ca.pem'),
        AGENT_TLS_CERT: path.join(certs, 'agent.pem'),
        AGENT_TLS_KEY: path.join(certs, 'agent-key.pem'),
        AGENT_ALLOWED_CLIENTS: 'devplein-control-plane',
        AGENT_DATA_DIR: path.join(work, 'agent-data'),
        AGENT_METRICS_LISTEN: `127.0.0.1:${agentMetricsPort}`,
        AGENT_CADDY_ADMIN: 'http://127.0.0.1:1',
        AGENT_IDLE_STOP_AFTER: '0',
        AGENT_DOCKER_NETWORK: `devplein-release-${process.pid}`,
        LOG_LEVEL: 'warn',
      },
    });
    started.push(agent);

    database = await createTestDatabase({ migrated: false });
    provider = await startOutsideProvider();
    const port = await findFreePort();
    controlPlaneUrl = `http://localhost:${port}`;
    controlPlane = startBundleCommand(bundle, ['control-plane'], {
      cwd: work,
      env: {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        APP_URL: controlPlaneUrl,
        // phpMyAdmin on an origin of its own (on APP_URL's, production warns at start).
        DB_ADMIN_URL: 'https://phpmyadmin.school.test/',
        DATABASE_URL: database.url,
        DATA_DIR: path.join(work, 'control-plane-data'),
        SESSION_SECRET: randomBytes(48).toString('base64url'),
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        ...provider.env,
        REALTIME_HOST: realtime.host,
        REALTIME_PORT: String(realtime.port),
        REALTIME_APP_ID: realtime.appId,
        REALTIME_KEY: realtime.key,
        REALTIME_SECRET: realtime.secret,
        AGENT_ADDRESS: `localhost:${agentPort}`,
        AGENT_TLS_CA: path.join(certs, 'ca.pem'),
        AGENT_TLS_CERT: path.join(certs, 'control-plane.pem'),
        AGENT_TLS_KEY: path.join(certs, 'control-plane-key.pem'),
        METRICS_LISTEN: '',
        LOG_LEVEL: 'warn',
      },
    });
    started.push(controlPlane);

    await Promise.all([
      waitForHttp(`http://${realtime.host}:${realtime.port}/`, { description: 'the bundle\'s soketi', timeoutMs: 60_000, giveUpIf: soketi.exitReason }),
      waitForHttp(agentHealth, { description: 'the bundle\'s agent /healthz', timeoutMs: 60_000, giveUpIf: agent.exitReason }),
      waitForHttp(`${controlPlaneUrl}/healthz`, { description: 'the bundle\'s control plane /healthz', timeoutMs: 90_000, giveUpIf: controlPlane.exitReason }),
    ]);
  }, 180_000);

  it('runs the control plane and the agent with the bundle\'s Node 24, soketi with its Node 20', async () => {
    for (const server of [controlPlane, agent]) {
      expect(await readlink(`/proc/${server.child.pid}/exe`)).toBe(path.join(bundle, 'node/bin/node'));
    }
    expect(await readlink(`/proc/${soketi.child.pid}/exe`)).toBe(path.join(bundle, 'soketi/node/bin/node'));
  });

  it('the control plane migrated the empty database, serves the web app, and reaches the agent over mutual TLS', async () => {
    const applied = await database!.knex('knex_migrations').orderBy('id').pluck('name');
    expect(applied).toEqual([...migrationNames]);
    const page = await fetch(`${controlPlaneUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    // The link comes up once the agent answers the control plane's health monitor.
    await waitFor(
      async () => {
        const health = (await (await fetch(`${controlPlaneUrl}/healthz`)).json()) as { status: string; agent: { state: string } | null };
        return health.status === 'ok' && health.agent?.state === 'reachable';
      },
      { description: 'the control plane to report its agent reachable', timeoutMs: 30_000, giveUpIf: controlPlane.exitReason },
    );
  });

  it('the agent answers its health check with the bundle\'s version', async () => {
    const response = await fetch(agentHealth);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', agentVersion: version });
  });

  it('soketi delivers an event triggered through its HTTP API to a subscriber of a private channel', async () => {
    await expect(triggerAndReceive(realtime, `private-container.release-${randomBytes(4).toString('hex')}`)).resolves.toEqual({ message: 'hallo' });
  });

  it('devplein admin creates and lists an admin', async () => {
    const env = { PATH: '/usr/bin:/bin', DATABASE_URL: database!.url };
    const devplein = path.join(bundle, 'bin/devplein');
    await run(devplein, ['admin', 'create', '--email', 'beheer@school.test', '--name', 'Bea Beheer'], { cwd: work, env });
    const { stdout } = await run(devplein, ['admin', 'list'], { cwd: work, env });
    expect(stdout).toContain('Bea Beheer <beheer@school.test>');
  });

  it('devplein agent invite and list: the links in PostgreSQL (the host agent still starts with `devplein agent`)', async () => {
    const env = {
      PATH: '/usr/bin:/bin',
      DATABASE_URL: database!.url,
      APP_URL: 'https://devplein.school.test',
      AGENT_TLS_CA: path.join(work, 'certs', 'ca.pem'),
      AGENT_CA_KEY_FILE: path.join(work, 'certs', 'ca-key.pem'),
    };
    const devplein = path.join(bundle, 'bin/devplein');
    const invited = await run(devplein, ['agent', 'invite', 'dev2', '--address', 'dev2.school.test:7443', '--site-domain', 'dev2.school.test'], { cwd: work, env });
    // The command asks for the string (`--join -`); the string is printed apart, to paste (issue 33: on no command line).
    expect(invited.stdout).toContain('sudo ./install.sh agent --join -\n');
    expect(invited.stdout).toMatch(/^ {2}https:\/\/devplein\.school\.test#[A-Za-z0-9_-]{43}\.[0-9a-f]{64}$/m);
    const { stdout } = await run(devplein, ['agent', 'list'], { cwd: work, env });
    expect(stdout).toMatch(/^dev1\tactive\t/m);
    expect(stdout).toMatch(/^dev2\tinvited\tdev2\.school\.test:7443\t/m);
  });
});

/**
 * The git runner of git deploys, as devplein-git.service starts it: `devplein git-runner` with the
 * secret in a file (the unit's credential) and a state folder; files it makes are not for others.
 */
describe('devplein git-runner from the unpacked bundle', () => {
  it('listens on loopback with the secret from its file and turns away a caller without it', async () => {
    const work = path.join(installDir, 'git-runner');
    await mkdir(work);
    const secretFile = path.join(work, 'git-runner-secret');
    const secret = randomBytes(32).toString('hex');
    await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
    const port = await findFreePort();
    const runner = startBundleCommand(bundle, ['git-runner'], {
      cwd: work,
      env: { GIT_RUNNER_LISTEN: `127.0.0.1:${port}`, GIT_RUNNER_SECRET_FILE: secretFile, GIT_RUNNER_STATE_DIR: path.join(work, 'state'), LOG_LEVEL: 'info', NODE_ENV: 'production' },
    });
    started.push(runner);
    await waitFor(() => runner.output().includes('"msg":"git runner listening"'), { description: 'the git runner to listen', timeoutMs: 30_000, giveUpIf: () => runner.exitReason() });
    const listening = runner
      .output()
      .split('\n')
      .find((line) => line.includes('"msg":"git runner listening"'));
    expect(JSON.parse(listening ?? '{}')).toMatchObject({ port });
    const fetchJob = (authorization?: string) =>
      fetch(`http://127.0.0.1:${port}/fetch`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(authorization ? { Authorization: authorization } : {}) }, body: '{}' });
    expect((await fetchJob()).status).toBe(401);
    expect((await fetchJob('Bearer not-the-secret-at-all')).status).toBe(401);
    // With the secret, a job that is no job is refused as such (not as unauthorized).
    expect((await fetchJob(`Bearer ${secret}`)).status).toBe(400);
  }, 60_000);
});

/**
 * Why soketi has a node of its own: on the bundle's Node 24, soketi's uWebSockets.js has no
 * binary and falls back to a JavaScript imitation, which serves the HTTP API but never accepts a
 * websocket. When this fails, soketi works on Node 24: drop soketi/node from the bundle.
 */
describe('soketi on the bundle\'s Node 24', () => {
  it('starts on the uWebSockets.js fallback but accepts no websocket', async () => {
    const suffix = randomBytes(4).toString('hex');
    const realtime: RealtimeApp = { host: '127.0.0.1', port: await findFreePort(), appId: `app-${suffix}`, key: `key-${suffix}`, secret: `secret-${suffix}` };
    const launch = await soketiLaunch({ ...realtime, clusterPort: await findFreePort(), metricsPort: await findFreePort(), shutdownGracePeriodMs: 200 });
    soketiDirs.push(launch.workDir);
    const soketi = spawn(path.join(bundle, 'node/bin/node'), [path.join(bundle, 'soketi/node_modules/@soketi/soketi/bin/server.js'), ...launch.args.slice(1)], {
      cwd: launch.workDir,
      env: { PATH: '/usr/bin:/bin', ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    soketi.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    soketi.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitForHttp(`http://${realtime.host}:${realtime.port}/`, { description: 'soketi on Node 24', timeoutMs: 60_000 });
      expect(output).toContain('Falling back to a NodeJS implementation');
      // pusher-js calls a connection that has not opened after unavailableTimeout 'unavailable' (the
      // fallback never answers the upgrade; soketi on Node 20 opens in milliseconds).
      const client = new PusherClient(realtime.key, {
        cluster: '',
        wsHost: realtime.host,
        wsPort: realtime.port,
        forceTLS: false,
        enabledTransports: ['ws'],
        disableStats: true,
        unavailableTimeout: 5_000,
      });
      try {
        await waitFor(() => client.connection.state === 'unavailable' || client.connection.state === 'connected', { description: 'the websocket to open or fail', timeoutMs: 30_000 });
        expect(client.connection.state).toBe('unavailable');
      } finally {
        client.disconnect();
      }
    } finally {
      soketi.kill('SIGKILL');
    }
  }, 60_000);
});
