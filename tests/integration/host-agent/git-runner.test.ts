/**
 * Git deploys through the git runner, as production runs them (issue 23): the runner
 * (host-agent/src/bin/git-runner.ts) as its own process of the git user, the real agent sending it
 * the fetches (AGENT_GIT_RUNNER) and fencing that user's traffic (DEVPLEIN-GIT), the real Docker
 * engine with the static busybox image, and the test git host.
 * - a repository deployed, updated after a push; the checkout is the runner's (owned by the git
 *   user, unreadable to others) and nothing of it lands in the agent's own state;
 * - a private repository over SSH with the deploy key: the runner holds the key only for the fetch;
 * - the runner refuses a request without its secret and a body that is not a fetch;
 * - with the runner gone a deploy fails in Dutch and the old site stays;
 * - RemoveContainer removes the checkout through the runner.
 * Root only (the runner runs as another user).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerServiceClient } from '@devplein/proto/container';
import { type DeployFinished, DeployOutcome, type DeployRepositoryRequest, DeployServiceClient } from '@devplein/proto/deploy';
import { lookUpUser } from '../../../host-agent/src/drivers/browser/browser-server-process.ts';
import { contractMetadata, unaryCall } from '../../support/clients/agent-calls.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { canSwitchUser } from '../../support/fixtures/agent-user.ts';
import { ensureSystemUser } from '../../support/fixtures/browser-user.ts';
import { execIn } from '../../support/clients/container-exec.ts';
import { ensureBusyboxImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { type GitHost, startGitHost } from '../../support/services/git-host.ts';
import { startTestGitRunner, type TestGitRunner } from '../../support/services/git-runner.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { sshAgentEnv } from '../../support/services/ssh-agent.ts';
import { createStaticSite, STATIC_DEPLOY_IMAGE } from '../../support/fixtures/static-site.ts';

const run = promisify(execFile);
const GIT_USER = 'devplein-git';
const asRoot = canSwitchUser();

const suffix = randomSuffix();
const docker = testDocker();
const base = 700_000 + Math.floor(Math.random() * 90_000);
const project = { site: base, keyed: base + 1, gone: base + 2, cancel: base + 3 };

let host: GitHost;
let workDir: string;
let dataDir: string;
let runner: TestGitRunner;
let agent: TestAgent;
let deploys: DeployServiceClient;
let containers: ContainerServiceClient;
let network: string;

/** The git processes of this file's runner (other tests' agents run git as the same user). */
async function runnerGitProcesses(): Promise<string[]> {
  return run('pgrep', ['-u', GIT_USER, '-a', '-f', `git.*${runner.stateDir}`]).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean),
    () => [],
  );
}

function startDeploy(request: Partial<DeployRepositoryRequest> & Pick<DeployRepositoryRequest, 'projectId' | 'address'>): { call: grpc.ClientReadableStream<unknown>; done: Promise<DeployFinished> } {
  const full: DeployRepositoryRequest = {
    branch: '',
    commit: '',
    target: { webRoot: '/www', afterUpdate: '', keepPaths: [], buildCommand: '', buildOutput: '' },
    allowedHosts: host.allowedHosts,
    allowHttp: true,
    credentials: undefined,
    deployId: `runner-${suffix}`,
    ...request,
  };
  const call = deploys.deployRepository(full, contractMetadata(), { deadline: new Date(Date.now() + 90_000) });
  const done = new Promise<DeployFinished>((resolve, reject) => {
    let finished: DeployFinished | undefined;
    call.on('data', (message: { event?: { $case: string; value: unknown } }) => {
      if (message.event?.$case === 'finished') finished = message.event.value as DeployFinished;
    });
    call.once('error', reject);
    call.once('end', () => (finished ? resolve(finished) : reject(new Error('the stream ended without finished'))));
  });
  return { call, done };
}

const deploy = (request: Partial<DeployRepositoryRequest> & Pick<DeployRepositoryRequest, 'projectId' | 'address'>): Promise<DeployFinished> => startDeploy(request).done;

async function createSite(projectId: number, name: string): Promise<Docker.Container> {
  return docker.getContainer(await createStaticSite(containers, projectId, `${name}-${suffix}`));
}

const indexOf = async (container: Docker.Container): Promise<string> => (await execIn(docker, container, ['cat', '/www/index.html'], 'root')).output;
const checkoutOf = (projectId: number): string => path.join(runner.stateDir, 'checkouts', String(projectId));

beforeAll(async () => {
  if (!asRoot) return;
  requireDockerEngine();
  await ensureBusyboxImage(STATIC_DEPLOY_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www']);
  ensureSystemUser(GIT_USER);
  const user = lookUpUser(GIT_USER);
  if (!user) throw new Error(`no user ${GIT_USER}`);
  host = await startGitHost();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-git-runner-'));
  // The git user passes through to its state folder (as through /var/lib in production).
  await chmod(workDir, 0o711);
  dataDir = path.join(workDir, 'agent-data');
  await mkdir(dataDir, { mode: 0o700 });
  runner = await startTestGitRunner({ user, stateDir: path.join(workDir, 'git-runner') });
  const secretFile = path.join(workDir, 'git-runner-secret');
  await writeFile(secretFile, `${runner.secret}\n`, { mode: 0o600 });
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  network = `devplein-test-runner-${suffix}`;
  agent = await startTestAgent({
    certDir: certs.dir,
    dataDir,
    env: {
      ...(await sshAgentEnv({ network })),
      AGENT_SITE_DOMAIN: 'dev.test',
      AGENT_GIT_USER: GIT_USER,
      AGENT_GIT_RUNNER: runner.url.replace(/^http:\/\//, ''),
      AGENT_GIT_RUNNER_SECRET_FILE: secretFile,
      AGENT_GIT_RUNNER_STATE_DIR: runner.stateDir,
      AGENT_DEPLOY_TIMEOUT_MS: '30000',
    },
  });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  deploys = new DeployServiceClient(agent.address, credentials);
  containers = new ContainerServiceClient(agent.address, credentials);
}, 120_000);

afterAll(async () => {
  deploys?.close();
  containers?.close();
  await agent?.stop();
  await runner?.stop();
  const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } }).catch(() => []);
  await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
  if (network) await docker.getNetwork(network).remove().catch(() => undefined);
  await host?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe.skipIf(!asRoot)('git deploys through the git runner', { timeout: 120_000 }, () => {
  it('deploys and updates a repository; the checkout is the git user’s, in the runner’s state, unreadable to others', async () => {
    const first = await host.createRepository('site', { 'index.html': '<h1>Via de runner</h1>\n' }, { message: 'Eerste' });
    const container = await createSite(project.site, 'site');
    const one = await deploy({ projectId: project.site, address: host.daemonUrl('site') });
    expect(one, JSON.stringify(one)).toMatchObject({ outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, commit: { hash: first, subject: 'Eerste' } });
    expect(await indexOf(container)).toBe('<h1>Via de runner</h1>\n');

    const second = await host.pushCommit('site', { 'index.html': '<h1>Bijgewerkt</h1>\n' }, { message: 'Tweede' });
    expect(await deploy({ projectId: project.site, address: host.daemonUrl('site') })).toMatchObject({ outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, commit: { hash: second } });
    expect(await indexOf(container)).toBe('<h1>Bijgewerkt</h1>\n');

    const { stdout: uid } = await run('id', ['-u', GIT_USER]);
    const { stdout: owner } = await run('stat', ['-c', '%u %A', checkoutOf(project.site), path.join(checkoutOf(project.site), 'index.html')]);
    // Owned by the git user; the group (the agent's, in production) reads; others nothing (the runner's umask 0027).
    expect(owner.trim().split('\n')).toEqual([`${uid.trim()} drwxr-x---`, `${uid.trim()} -rw-r-----`]);
    expect(existsSync(path.join(dataDir, 'deploy', 'checkouts'))).toBe(false);
    // The agent fenced the git user's traffic while it ran git through the runner.
    expect((await run('iptables', ['-w', '-S', 'OUTPUT'])).stdout).toContain(`--uid-owner ${uid.trim()} -j DEVPLEIN-GIT`);
  });

  it.skipIf(!existsSync('/usr/sbin/sshd'))('clones a private repository over SSH with the deploy key; the runner keeps no key afterwards', async () => {
    await host.createRepository('private', { 'index.html': '<h1>Privé via de runner</h1>\n' });
    const container = await createSite(project.keyed, 'keyed');
    const key = await unaryCall(deploys, deploys.getDeployKey, { projectId: project.keyed, existingOnly: false });
    await host.authorizeKey(key.publicKey);
    const done = await deploy({ projectId: project.keyed, address: host.sshUrl('private')!, credentials: { $case: 'useDeployKey', value: true } });
    expect(done.outcome, JSON.stringify(done)).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    expect(await indexOf(container)).toBe('<h1>Privé via de runner</h1>\n');
    expect(await readdir(path.join(runner.stateDir, 'run'))).toEqual([]);
    const { stdout: plainAnywhere } = await run('grep', ['-rl', 'OPENSSH PRIVATE KEY', runner.stateDir]).catch(() => ({ stdout: '' }));
    expect(plainAnywhere).toBe('');
  });

  it('refuses a request without its secret (401) and a body that is not a fetch (400); nothing is fetched', async () => {
    const job = { projectId: project.gone, address: host.daemonUrl('site'), policy: { allowedHosts: host.allowedHosts, allowHttp: true }, timeoutMs: 10_000, maxBytes: 1_000_000, credentials: { kind: 'anonymous' } };
    const without = await fetch(`${runner.url}/fetch`, { method: 'POST', body: JSON.stringify(job), headers: { 'Content-Type': 'application/json' } });
    expect(without.status).toBe(401);
    const wrong = await fetch(`${runner.url}/fetch`, { method: 'POST', body: JSON.stringify(job), headers: { Authorization: `Bearer ${runner.secret}x` } });
    expect(wrong.status).toBe(401);
    const notAFetch = await fetch(`${runner.url}/fetch`, { method: 'POST', body: JSON.stringify({ ...job, credentials: { kind: 'ssh-agent' } }), headers: { Authorization: `Bearer ${runner.secret}` } });
    expect(notAFetch.status).toBe(400);
    expect(existsSync(checkoutOf(project.gone))).toBe(false);
  });

  it('a cancelled deploy stops its git in the runner', async () => {
    await host.createRepository('slow', { 'index.html': '<h1>Traag</h1>\n' });
    await createSite(project.cancel, 'cancel');
    const hanging = startDeploy({ projectId: project.cancel, address: host.hangingUrl('slow') });
    const ended = hanging.done.then(
      () => 'ended',
      (error: grpc.ServiceError) => error.code,
    );
    await waitFor(async () => (await runnerGitProcesses()).length > 0, { description: 'git to run in the runner for the hanging deploy' });
    hanging.call.cancel();
    expect(await ended).toBe(grpc.status.CANCELLED);
    await waitFor(async () => (await runnerGitProcesses()).length === 0, { description: 'no git process of the cancelled fetch left in the runner' });
    expect(existsSync(checkoutOf(project.cancel))).toBe(false);
  });

  it('removes the checkout through the runner when the container goes', async () => {
    expect(existsSync(checkoutOf(project.site))).toBe(true);
    await unaryCall(containers, containers.removeContainer, { container: { ref: { $case: 'projectId', value: project.site } } });
    expect(existsSync(checkoutOf(project.site))).toBe(false);
  });

  it('with the runner gone, a deploy fails in Dutch and the old site stays', async () => {
    await host.createRepository('gone', { 'index.html': '<h1>Eerst</h1>\n' });
    const container = await createSite(project.gone, 'gone');
    expect((await deploy({ projectId: project.gone, address: host.daemonUrl('gone') })).outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED);
    await host.pushCommit('gone', { 'index.html': '<h1>Nooit</h1>\n' });
    await runner.kill();
    const failed = await deploy({ projectId: project.gone, address: host.daemonUrl('gone') });
    expect(failed).toMatchObject({
      outcome: DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED,
      message: 'De git-runner van de ontwikkelserver antwoordt niet; meld het bij een docent. De oude site blijft staan.',
    });
    expect(await indexOf(container)).toBe('<h1>Eerst</h1>\n');
  });
});
