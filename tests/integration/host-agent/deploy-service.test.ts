/**
 * The host agent's DeployService (host-agent/src/services/deploy-service.ts, contract 1.7.0) over
 * gRPC with mTLS: the real agent (as root, as these tests run: git as its own user behind the
 * DEVPLEIN-GIT chain), the real Docker engine with the static busybox image (httpd serving /www),
 * and the test git host (git daemon, http-backend with a token, sshd with git-shell):
 * - a repository deployed into a running container, an update after a push, a roll back by commit;
 * - a private repository over SSH with the project's deploy key (sealed on disk), refused without it;
 * - HTTP with a token, and a wrong token;
 * - addresses outside the allowed hosts, file://, a redirect to another host;
 * - a build step, a failing build and a failing after-update command (the old site stays);
 * - no container (NOT_FOUND), a stopped one (FAILED_PRECONDITION); a stop while a deploy runs stops the deploy;
 * - the git user's firewall: a loopback port other than the git host's is refused to that user;
 * - RemoveContainer removes the checkout and keeps the deploy key.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerAction, ContainerServiceClient } from '@devplein/proto/container';
import {
  type DeployFinished,
  DeployOutcome,
  DeployPhase,
  type DeployProgress,
  type DeployRepositoryRequest,
  type DeployTarget,
  DeployServiceClient,
} from '@devplein/proto/deploy';
import { contractMetadata, refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { canSwitchUser } from '../../support/fixtures/agent-user.ts';
import { ensureSystemUser } from '../../support/fixtures/browser-user.ts';
import { execIn } from '../../support/clients/container-exec.ts';
import { ensureBusyboxImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { type GitHost, startGitHost } from '../../support/services/git-host.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { sshAgentEnv } from '../../support/services/ssh-agent.ts';
import { createStaticSite, STATIC_DEPLOY_IMAGE } from '../../support/fixtures/static-site.ts';

const run = promisify(execFile);
const GIT_USER = 'devplein-git';
const asRoot = canSwitchUser();

const suffix = randomSuffix();
const docker = testDocker();
const base = 600_000 + Math.floor(Math.random() * 90_000);
const project = { site: base, keyed: base + 1, token: base + 2, refused: base + 3, build: base + 4, stopped: base + 5, none: base + 6, cancel: base + 7, interrupted: base + 8, startedMeanwhile: base + 9 };

let host: GitHost;
let workDir: string;
let dataDir: string;
let agent: TestAgent;
let deploys: DeployServiceClient;
let containers: ContainerServiceClient;
let network: string;

/** The static image's target: /www, with these settings. */
const target = (settings: Partial<DeployTarget> = {}): DeployTarget => ({ webRoot: '/www', afterUpdate: '', keepPaths: [], buildCommand: '', buildOutput: '', ...settings });

interface DeployRun {
  progress: DeployProgress[];
  finished: DeployFinished;
}

interface StartedDeploy {
  call: grpc.ClientReadableStream<unknown>;
  progress: DeployProgress[];
  /** The progress and the last message once the stream ends; rejects with the call's error. */
  done: Promise<DeployRun>;
}

/** DeployRepository started: its call (to cancel), the progress so far, and its end. */
function startDeploy(request: Partial<DeployRepositoryRequest> & Pick<DeployRepositoryRequest, 'projectId' | 'address'>): StartedDeploy {
  const full: DeployRepositoryRequest = {
    branch: '',
    commit: '',
    target: target(),
    allowedHosts: host.allowedHosts,
    allowHttp: true,
    credentials: undefined,
    deployId: `test-${suffix}`,
    ...request,
  };
  const progress: DeployProgress[] = [];
  const call = deploys.deployRepository(full, contractMetadata(), { deadline: new Date(Date.now() + 120_000) });
  const done = new Promise<DeployRun>((resolve, reject) => {
    let finished: DeployFinished | undefined;
    call.on('data', (message: { event?: { $case: 'progress'; value: DeployProgress } | { $case: 'finished'; value: DeployFinished } }) => {
      if (message.event?.$case === 'progress') progress.push(message.event.value);
      else if (message.event?.$case === 'finished') finished = message.event.value;
    });
    call.once('error', reject);
    call.once('end', () => (finished ? resolve({ progress, finished }) : reject(new Error(`the stream ended without finished; progress: ${JSON.stringify(progress)}`))));
  });
  return { call, progress, done };
}

/** DeployRepository to its end: the progress lines and the last message. */
function deploy(request: Partial<DeployRepositoryRequest> & Pick<DeployRepositoryRequest, 'projectId' | 'address'>): Promise<DeployRun> {
  return startDeploy(request).done;
}

async function createSite(projectId: number, name: string): Promise<Docker.Container> {
  return docker.getContainer(await createStaticSite(containers, projectId, `${name}-${suffix}`));
}

/** Runs a command in the container (as root unless `user`): its output. */
const exec = (container: Docker.Container, cmd: string[], user = 'root'): Promise<{ exitCode: number; output: string }> => execIn(docker, container, cmd, user);

/**
 * git processes of this file's deploys (the git user's when root, else any git fetch/clone with
 * --progress), named by this agent's data folder: other test files' agents run git as the same user.
 */
async function gitProcesses(): Promise<string[]> {
  const args = asRoot ? ['-u', GIT_USER, '-a', '-f', `git.*${dataDir}`] : ['-af', `git.*--progress.*${dataDir}`];
  return run('pgrep', args).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean),
    () => [],
  );
}

const indexOf = async (container: Docker.Container): Promise<string> => (await exec(container, ['cat', '/www/index.html'])).output;
const besideWebRoot = async (container: Docker.Container): Promise<string[]> =>
  (await exec(container, ['ls', '-a', '/'])).output.split('\n').filter((name) => name.startsWith('www'));
/** Only the web root beside it, once the deploy's removal of the previous tree (after the answer) is done. */
const onlyWebRootLeft = (container: Docker.Container): Promise<void> =>
  waitFor(async () => (await besideWebRoot(container)).join() === 'www', { description: 'the previous tree to be removed after the deploy' });

beforeAll(async () => {
  requireDockerEngine();
  await ensureBusyboxImage(STATIC_DEPLOY_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www']);
  if (asRoot) ensureSystemUser(GIT_USER);
  host = await startGitHost();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-deploy-service-'));
  // The git user passes through to the agent's data folder (as through /var/lib in production).
  await chmod(workDir, 0o711);
  dataDir = path.join(workDir, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  network = `devplein-test-deploy-${suffix}`;
  agent = await startTestAgent({
    certDir: certs.dir,
    dataDir,
    env: {
      ...(await sshAgentEnv({ network })),
      AGENT_SITE_DOMAIN: 'dev.test',
      AGENT_GIT_USER: GIT_USER,
      AGENT_DEPLOY_TIMEOUT_MS: '30000',
      AGENT_DEPLOY_COMMAND_TIMEOUT_MS: '30000',
    },
  });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  deploys = new DeployServiceClient(agent.address, credentials);
  containers = new ContainerServiceClient(agent.address, credentials);
});

afterAll(async () => {
  deploys?.close();
  containers?.close();
  await agent?.stop();
  const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } }).catch(() => []);
  await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
  await docker.getNetwork(network).remove().catch(() => undefined);
  await host?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('DeployService', { timeout: 120_000 }, () => {
  it('deploys a repository into the running container, an update after a push, and rolls back to a commit', async () => {
    const first = await host.createRepository('site', { 'index.html': '<h1>Versie 1</h1>\n' }, { message: 'Eerste versie' });
    const container = await createSite(project.site, 'site');
    const started = performance.now();
    const one = await deploy({ projectId: project.site, address: host.daemonUrl('site') });
    const firstMs = Math.round(performance.now() - started);
    expect(one.finished).toMatchObject({ outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, files: 1, bytes: 18, restarted: true });
    expect(one.finished.commit).toMatchObject({ hash: first, subject: 'Eerste versie', author: 'Student Test', authorEmail: 'student@school.test' });
    expect(one.finished.message).toBe(`De site is bijgewerkt naar commit ${first.slice(0, 8)}.`);
    const lines = one.progress.map((line) => line.line);
    expect(lines[0]).toBe(`Ophalen van ${host.daemonUrl('site')} (de standaardbranch)`);
    expect(one.progress.some((line) => line.phase === DeployPhase.DEPLOY_PHASE_FETCH && /^Ophalen: \d+% \(\d+\/\d+\)/.test(line.line) && line.percent >= 0)).toBe(true);
    expect(lines).toContain('Kopiëren: 1 bestand (18 B)');
    expect(lines).toContain('Wisselen');
    expect(lines).toContain('Container herstart: de webserver werkte in de oude map');
    expect(await indexOf(container)).toBe('<h1>Versie 1</h1>\n');

    const second = await host.pushCommit('site', { 'index.html': '<h1>Versie 2</h1>\n' }, { message: 'Tweede versie' });
    const updateStarted = performance.now();
    const two = await deploy({ projectId: project.site, address: host.daemonUrl('site') });
    const updateMs = Math.round(performance.now() - updateStarted);
    expect(two.finished).toMatchObject({ outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, commit: { hash: second, subject: 'Tweede versie' } });
    expect(await indexOf(container)).toBe('<h1>Versie 2</h1>\n');

    const back = await deploy({ projectId: project.site, address: host.daemonUrl('site'), commit: first });
    expect(back.finished).toMatchObject({ outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, commit: { hash: first } });
    expect(back.progress[0]?.line).toBe(`Ophalen van ${host.daemonUrl('site')} (commit ${first.slice(0, 8)})`);
    expect(await indexOf(container)).toBe('<h1>Versie 1</h1>\n');

    // A commit the server does not have: FETCH_FAILED, the site as it was.
    const missing = await deploy({ projectId: project.site, address: host.daemonUrl('site'), commit: 'f'.repeat(40) });
    expect(missing.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED);
    expect(missing.finished.message).toMatch(/^De Git-server gaf commit ffffffff niet/);
    expect(await indexOf(container)).toBe('<h1>Versie 1</h1>\n');
    await onlyWebRootLeft(container);

    // Kept paths survive, with their owner, also a file only its owner reads (the agent's
    // containers drop every capability: root may not write in, or read, the student's files).
    const written = await exec(container, ['sh', '-c', 'mkdir -p /www/uploads && echo foto > /www/uploads/foto.txt && echo geheim > /www/.env && chmod 600 /www/.env'], '1000:1000');
    expect(written.exitCode, written.output).toBe(0);
    const kept = await deploy({ projectId: project.site, address: host.daemonUrl('site'), target: target({ keepPaths: ['uploads', '.env', 'wp-config.php'] }) });
    expect(kept.finished.outcome, JSON.stringify(kept)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(kept.progress.map((line) => line.line)).toContain('Bewaard: uploads, .env');
    expect(await indexOf(container)).toBe('<h1>Versie 2</h1>\n');
    expect((await exec(container, ['cat', '/www/uploads/foto.txt'])).output).toBe('foto\n');
    expect((await exec(container, ['cat', '/www/.env'], '1000:1000')).output).toBe('geheim\n');
    expect((await exec(container, ['stat', '-c', '%u %a', '/www/.env'])).output).toBe('1000 600\n');
    await onlyWebRootLeft(container);
    console.log(`[deploy-service] first deploy of a 1-file repository: ${firstMs} ms (with a container restart); update after a push: ${updateMs} ms`);
  });

  it('runs git as the git user (checkout owned by it) and keeps that user off every other loopback port', async () => {
    if (!asRoot) return;
    const { stdout: uid } = await run('id', ['-u', GIT_USER]);
    const checkout = path.join(dataDir, 'deploy', 'checkouts', String(project.site));
    const { stdout: owner } = await run('stat', ['-c', '%u', checkout]);
    expect(owner.trim()).toBe(uid.trim());
    expect((await run('iptables', ['-w', '-S', 'OUTPUT'])).stdout).toContain(`--uid-owner ${uid.trim()} -j DEVPLEIN-GIT`);
    // A listening loopback port: root reaches it, the git user is refused (only the git host's port opens, and only during a fetch).
    const listener: Server = createServer((socket) => {
      // bash hangs up at once (a reset): nothing to report.
      socket.on('error', () => undefined);
      socket.end('hallo\n');
    });
    const port = await findFreePort();
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', () => resolve()));
    try {
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo verbonden`;
      expect((await run('bash', ['-c', connect])).stdout).toContain('verbonden');
      const refused = await run('setpriv', [`--reuid=${GIT_USER}`, `--regid=${GIT_USER}`, '--clear-groups', 'bash', '-c', connect]).then(
        () => 'connected',
        (error: { stderr?: string }) => error.stderr ?? '',
      );
      expect(refused).toMatch(/Connection refused/);
      // The git host's daemon port is closed to it too between fetches.
      const daemonPort = new URL(host.daemonUrl('site')).port;
      const daemon = await run('setpriv', [`--reuid=${GIT_USER}`, `--regid=${GIT_USER}`, '--clear-groups', 'bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${daemonPort}`]).then(
        () => 'connected',
        (error: { stderr?: string }) => error.stderr ?? '',
      );
      expect(daemon).toMatch(/Connection refused/);
    } finally {
      listener.close();
    }
  });

  it.skipIf(!existsSync('/usr/sbin/sshd'))('clones a private repository over SSH with the project’s deploy key, sealed on disk; without the key: AUTH_FAILED', async () => {
    await host.createRepository('private', { 'index.html': '<h1>Privé</h1>\n' });
    const container = await createSite(project.keyed, 'keyed');
    const before = await indexOf(container);
    const address = host.sshUrl('private')!;
    const noKeyYet = await deploy({ projectId: project.keyed, address, credentials: { $case: 'useDeployKey', value: true } });
    expect(noKeyYet.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED);

    // Asked for the existing key only (contract 1.8.0, the panel's read): none, and none made.
    expect(await unaryCall(deploys, deploys.getDeployKey, { projectId: project.keyed, existingOnly: true })).toEqual({ publicKey: '', fingerprint: '' });
    const key = await unaryCall(deploys, deploys.getDeployKey, { projectId: project.keyed, existingOnly: false });
    expect(key.publicKey).toMatch(new RegExp(`^ssh-ed25519 [A-Za-z0-9+/]+=* devplein-project-${project.keyed}@`));
    expect(key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(await unaryCall(deploys, deploys.getDeployKey, { projectId: project.keyed, existingOnly: false })).toEqual(key);
    expect(await unaryCall(deploys, deploys.getDeployKey, { projectId: project.keyed, existingOnly: true })).toEqual(key);

    const refused = await deploy({ projectId: project.keyed, address, credentials: { $case: 'useDeployKey', value: true } });
    expect(refused.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED);
    expect(refused.finished.message).toMatch(/weigerde de toegang/);
    expect(await indexOf(container)).toBe(before);

    await host.authorizeKey(key.publicKey);
    const done = await deploy({ projectId: project.keyed, address, credentials: { $case: 'useDeployKey', value: true } });
    expect(done.finished.outcome, JSON.stringify(done)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(await indexOf(container)).toBe('<h1>Privé</h1>\n');

    // On disk: sealed, no private key in plain text anywhere under the deploy folder; no opened key left.
    const sealed = await readFile(path.join(dataDir, 'deploy', 'keys', `${project.keyed}.json`), 'utf8');
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(JSON.parse(sealed)).toMatchObject({ format: 1, publicKey: key.publicKey });
    const { stdout: plainAnywhere } = await run('grep', ['-rl', 'OPENSSH PRIVATE KEY', path.join(dataDir, 'deploy')]).catch(() => ({ stdout: '' }));
    expect(plainAnywhere).toBe('');
    expect(await readdir(path.join(dataDir, 'deploy', 'run'))).toEqual([]);
    const { stdout: mode } = await run('stat', ['-c', '%a', path.join(dataDir, 'deploy', 'seal.key')]);
    expect(mode.trim()).toBe('600');
  });

  it('fetches over HTTP with a token; a wrong token is AUTH_FAILED and changes nothing', async () => {
    await host.createRepository('token', { 'index.html': '<h1>Met token</h1>\n' });
    const container = await createSite(project.token, 'token');
    const before = await indexOf(container);
    const wrong = await deploy({ projectId: project.token, address: host.httpUrl('token'), credentials: { $case: 'httpsToken', value: 'tok_fout' } });
    expect(wrong.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED);
    expect(await indexOf(container)).toBe(before);
    const right = await deploy({ projectId: project.token, address: host.httpUrl('token'), credentials: { $case: 'httpsToken', value: host.token } });
    expect(right.finished.outcome, JSON.stringify(right)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(await indexOf(container)).toBe('<h1>Met token</h1>\n');
  });

  it('refuses addresses outside the allowed hosts and file:// (INVALID_ARGUMENT), and a redirect to another host (FETCH_FAILED); nothing changes', async () => {
    await host.createRepository('moved', { 'index.html': '<h1>Verhuisd</h1>\n' });
    const container = await createSite(project.refused, 'refused');
    const before = await indexOf(container);
    const outside = await refusal(deploy({ projectId: project.refused, address: host.daemonUrl('moved'), allowedHosts: ['git.school.test'] }));
    expect(outside.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outside.details).toMatch(/De Git-server 127\.0\.0\.1 is niet toegestaan/);
    const file = await refusal(deploy({ projectId: project.refused, address: `file://${host.reposDir}/moved.git` }));
    expect(file.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(file.details).toMatch(/file:\/\//);
    const redirected = await deploy({ projectId: project.refused, address: host.redirectUrl('moved'), allowedHosts: [...host.allowedHosts, host.redirectTargetHost] });
    expect(redirected.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED);
    expect(redirected.finished.message).toMatch(/doorsturen is niet toegestaan/);
    expect(await indexOf(container)).toBe(before);
    await onlyWebRootLeft(container);
  });

  it('runs a build step into the web root; a failing build or after-update command keeps the old site', async () => {
    await host.createRepository('build', {
      'index.html': '<h1>Bron</h1>\n',
      'build.sh': 'mkdir -p dist && sed "s/Bron/Gebouwd door $(id -un)/" index.html > dist/index.html && echo gebouwd\n',
    });
    const container = await createSite(project.build, 'build');
    const built = await deploy({
      projectId: project.build,
      address: host.daemonUrl('build'),
      target: target({ buildCommand: 'sh build.sh', buildOutput: 'dist' }),
    });
    expect(built.finished.outcome, JSON.stringify(built)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(built.progress).toContainEqual({ phase: DeployPhase.DEPLOY_PHASE_BUILD, line: 'gebouwd', percent: -1 });
    expect(await indexOf(container)).toBe('<h1>Gebouwd door student</h1>\n');

    // busybox has no npm: the command fails, its output is in the log.
    const noTools = await deploy({
      projectId: project.build,
      address: host.daemonUrl('build'),
      target: target({ buildCommand: 'npm run build', buildOutput: 'dist' }),
    });
    expect(noTools.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_BUILD_FAILED);
    expect(noTools.progress.some((line) => line.phase === DeployPhase.DEPLOY_PHASE_BUILD && /npm: not found/.test(line.line))).toBe(true);
    expect(noTools.finished.message).toMatch(/^De bouwopdracht is mislukt \(afsluitcode 127\)\. De oude site blijft staan\./);
    expect(await indexOf(container)).toBe('<h1>Gebouwd door student</h1>\n');

    const afterUpdate = await deploy({
      projectId: project.build,
      address: host.daemonUrl('build'),
      target: target({ afterUpdate: 'echo bijna; exit 3' }),
    });
    expect(afterUpdate.finished.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_AFTER_UPDATE_FAILED);
    expect(afterUpdate.progress).toContainEqual({ phase: DeployPhase.DEPLOY_PHASE_AFTER_UPDATE, line: 'bijna', percent: -1 });
    expect(await indexOf(container)).toBe('<h1>Gebouwd door student</h1>\n');
    await onlyWebRootLeft(container);
  });

  it('stops a fetch when the caller cancels; a second deploy of the project waits for the first and then runs', async () => {
    await host.createRepository('slow', { 'index.html': '<h1>Na het wachten</h1>\n' });
    const container = await createSite(project.cancel, 'cancel');
    const before = await indexOf(container);
    const hanging = startDeploy({ projectId: project.cancel, address: host.hangingUrl('slow') });
    const hangingEnd = hanging.done.then(
      () => 'ended',
      (error: grpc.ServiceError) => error.code,
    );
    await waitFor(() => hanging.progress.length > 0, { description: 'the hanging deploy to start fetching' });
    const queued = startDeploy({ projectId: project.cancel, address: host.daemonUrl('slow') });
    // The queued deploy says nothing while the first holds the project.
    await waitFor(async () => (await gitProcesses()).length > 0, { description: 'git to run for the hanging deploy' });
    expect(queued.progress).toEqual([]);
    hanging.call.cancel();
    expect(await hangingEnd).toBe(grpc.status.CANCELLED);
    const second = await queued.done;
    expect(second.finished.outcome, JSON.stringify(second)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(await indexOf(container)).not.toBe(before);
    expect(await indexOf(container)).toBe('<h1>Na het wachten</h1>\n');
    await waitFor(async () => (await gitProcesses()).length === 0, { description: 'no git process of the cancelled fetch left' });
  });

  it('lets a start of the running container pass beside a deploy, which goes on to the end', async () => {
    await host.createRepository('started', { 'index.html': '<h1>Toch live</h1>\n' });
    const container = await createSite(project.startedMeanwhile, 'started-meanwhile');
    const running = startDeploy({ projectId: project.startedMeanwhile, address: host.daemonUrl('started'), target: target({ afterUpdate: 'echo bezig; sleep 3' }) });
    await waitFor(() => running.progress.some((line) => line.phase === DeployPhase.DEPLOY_PHASE_AFTER_UPDATE && line.line === 'bezig'), {
      description: 'the after-update command to run',
    });
    // The control plane starts a container it just made, or one a student wakes, while its first deploy runs.
    const ref = { ref: { $case: 'projectId' as const, value: project.startedMeanwhile } };
    const started = await unaryCall(containers, containers.changeContainerState, { container: ref, action: ContainerAction.CONTAINER_ACTION_START });
    expect(started.container?.state).toBe('running');
    const ended = await running.done;
    expect(ended.finished.outcome, JSON.stringify(ended)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(await indexOf(container)).toBe('<h1>Toch live</h1>\n');
  });

  it('stops a deploy when its container is stopped meanwhile (the old site stays); the stop does not wait for the deploy', async () => {
    await host.createRepository('long', { 'index.html': '<h1>Nooit live</h1>\n' });
    const container = await createSite(project.interrupted, 'interrupted');
    const before = await indexOf(container);
    const long = startDeploy({ projectId: project.interrupted, address: host.daemonUrl('long'), target: target({ afterUpdate: 'echo bezig; sleep 600' }) });
    await waitFor(() => long.progress.some((line) => line.phase === DeployPhase.DEPLOY_PHASE_AFTER_UPDATE && line.line === 'bezig'), {
      description: 'the after-update command to run',
    });
    const ref = { ref: { $case: 'projectId' as const, value: project.interrupted } };
    // Well within the control plane's deadline of a state change (30 s), not the command's 600 s.
    const stopped = await unaryCall(containers, containers.changeContainerState, { container: ref, action: ContainerAction.CONTAINER_ACTION_STOP }, 25_000);
    expect(stopped.container?.state).toBe('exited');
    const ended = await long.done;
    expect(ended.finished.outcome, JSON.stringify(ended)).toBe(DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED);
    expect(ended.finished.message).toBe('De deploy is gestopt omdat de container intussen werd gestopt, herstart of gepauzeerd. De oude site blijft staan.');
    await unaryCall(containers, containers.changeContainerState, { container: ref, action: ContainerAction.CONTAINER_ACTION_START });
    expect(await indexOf(container)).toBe(before);
  });

  it('answers NOT_FOUND without a container and FAILED_PRECONDITION for a stopped one', async () => {
    await host.createRepository('idle', { 'index.html': 'x\n' });
    const none = await refusal(deploy({ projectId: project.none, address: host.daemonUrl('idle') }));
    expect(none.code).toBe(grpc.status.NOT_FOUND);
    await createSite(project.stopped, 'stopped');
    await unaryCall(containers, containers.changeContainerState, { container: { ref: { $case: 'projectId', value: project.stopped } }, action: ContainerAction.CONTAINER_ACTION_STOP });
    const stopped = await refusal(deploy({ projectId: project.stopped, address: host.daemonUrl('idle') }));
    expect(stopped.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(stopped.details).toMatch(/draait niet/);
  });

  it('removes the checkout with the container and keeps the deploy key', async () => {
    const checkout = path.join(dataDir, 'deploy', 'checkouts', String(project.site));
    expect(existsSync(checkout)).toBe(true);
    await unaryCall(containers, containers.removeContainer, { container: { ref: { $case: 'projectId', value: project.site } } });
    expect(existsSync(checkout)).toBe(false);
    if (existsSync('/usr/sbin/sshd')) {
      await unaryCall(containers, containers.removeContainer, { container: { ref: { $case: 'projectId', value: project.keyed } } });
      expect(existsSync(path.join(dataDir, 'deploy', 'keys', `${project.keyed}.json`))).toBe(true);
    }
  });
});
