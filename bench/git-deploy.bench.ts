/**
 * Push to deploy (issue 23): how long a deploy of a 50 MB repository takes through the agent's
 * DeployRepository, against git by hand on the same machine from the same git daemon.
 *
 * - First deploy: the agent's shallow clone, the copy into the container and the swap (a new
 *   project each run, so nothing is cached), against `git clone --depth 1` by hand.
 * - Update of one file after a push: the agent's fetch, copy and swap, against
 *   `git fetch --depth 1` plus `git checkout` by hand in a clone of its own.
 *
 * Goal (issue 23): the agent ≤ 1.2 × git by hand + 1 s.
 *
 *   npm run bench -- git-deploy                              (50 MB, 3 runs)
 *   BENCH_DEPLOY_MB=20 BENCH_DEPLOY_RUNS=5 npm run bench -- git-deploy
 *
 * As root (as here) the agent runs git as its own user behind its firewall chain, as in
 * production; git by hand runs as root without one.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { ContainerServiceClient } from '@devplein/proto/container';
import { type DeployFinished, DeployOutcome, DeployPhase, type DeployProgress, DeployServiceClient } from '@devplein/proto/deploy';
import { ensureBusyboxImage } from '../scripts/lib/busybox-image.ts';
import { contractMetadata } from '../tests/support/clients/agent-calls.ts';
import { makeTestCerts, readClientPems, startTestAgent } from '../tests/support/services/agent.ts';
import { canSwitchUser } from '../tests/support/fixtures/agent-user.ts';
import { ensureSystemUser } from '../tests/support/fixtures/browser-user.ts';
import { ensureDockerEngine, randomSuffix, testDocker } from '../tests/support/services/docker.ts';
import { startGitHost } from '../tests/support/services/git-host.ts';
import { sshAgentEnv } from '../tests/support/services/ssh-agent.ts';
import { createStaticSite, STATIC_DEPLOY_IMAGE } from '../tests/support/fixtures/static-site.ts';
import { Cleanups } from './lib/cleanups.ts';

const MEGABYTES = Number(process.env.BENCH_DEPLOY_MB ?? 50);
const RUNS = Number(process.env.BENCH_DEPLOY_RUNS ?? 3);
const GIT_USER = 'devplein-git';
const run = promisify(execFile);
const suffix = randomSuffix();
const docker = testDocker();
const cleanups = new Cleanups();

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

try {
  await ensureDockerEngine();
  await ensureBusyboxImage(STATIC_DEPLOY_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www']);
  const asRoot = canSwitchUser();
  if (asRoot) ensureSystemUser(GIT_USER);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-deploy-'));
  cleanups.add('work dir', () => rm(workDir, { recursive: true, force: true }));
  // The git user passes through to the agent's data folder (as through /var/lib in production).
  await chmod(workDir, 0o711);
  const dataDir = path.join(workDir, 'data');
  await mkdir(dataDir, { mode: 0o700 });

  const host = await startGitHost();
  cleanups.add('git host', () => host.stop());
  console.log(`Making a ${MEGABYTES} MB repository (random data, one commit) on the test git daemon …`);
  await host.createLargeRepository('groot', MEGABYTES);
  const address = host.daemonUrl('groot');

  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const network = `bench-deploy-${suffix}`;
  const agent = await startTestAgent({
    certDir: certs.dir,
    dataDir,
    env: {
      ...(await sshAgentEnv({ network })),
      AGENT_SITE_DOMAIN: 'dev.test',
      ...(asRoot ? { AGENT_GIT_USER: GIT_USER } : {}),
      AGENT_DEPLOY_MAX_BYTES: String((MEGABYTES * 4 + 50) * 1024 * 1024),
    },
  });
  cleanups.add('agent', () => agent.stop());
  cleanups.add('containers and network', async () => {
    const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } });
    await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
    await docker.getNetwork(network).remove().catch(() => undefined);
  });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  const deploys = new DeployServiceClient(agent.address, credentials);
  const containers = new ContainerServiceClient(agent.address, credentials);
  cleanups.add('clients', async () => {
    deploys.close();
    containers.close();
  });

  /** When each phase's first line came, in ms since the call (where the time goes). */
  const phaseStarts = new Map<number, Map<DeployPhase, number>>();
  const deploy = (projectId: number): Promise<DeployFinished> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const starts = new Map<DeployPhase, number>();
      phaseStarts.set(projectId, starts);
      const call = deploys.deployRepository(
        {
          projectId,
          address,
          branch: '',
          commit: '',
          target: { webRoot: '/www', afterUpdate: '', keepPaths: [], buildCommand: '', buildOutput: '' },
          allowedHosts: host.allowedHosts,
          allowHttp: false,
          credentials: undefined,
          deployId: `bench-${projectId}`,
        },
        contractMetadata(),
        { deadline: new Date(Date.now() + 600_000) },
      );
      let finished: DeployFinished | undefined;
      call.on('data', (message: { event?: { $case: string; value: unknown } }) => {
        if (message.event?.$case === 'finished') finished = message.event.value as DeployFinished;
        if (message.event?.$case === 'progress') {
          const { phase } = message.event.value as DeployProgress;
          if (!starts.has(phase)) starts.set(phase, performance.now() - started);
        }
      });
      call.once('error', reject);
      call.once('end', () => {
        if (finished?.outcome === DeployOutcome.DEPLOY_OUTCOME_DEPLOYED) resolve(finished);
        else reject(new Error(`deploy of project ${projectId} did not deploy: ${JSON.stringify(finished)}`));
      });
    });

  const phaseText = (projectId: number): string =>
    [...(phaseStarts.get(projectId) ?? new Map<DeployPhase, number>())]
      .map(([phase, ms]) => `${DeployPhase[phase]?.replace('DEPLOY_PHASE_', '').toLowerCase()} from ${seconds(ms)}`)
      .join(', ');

  const rows: Array<{ cloneMs: number; firstMs: number; fetchMs: number; updateMs: number; files: number; mb: number }> = [];
  for (let index = 0; index < RUNS; index += 1) {
    const projectId = 870_000_000 + index;
    // Container names are letters and hyphens only.
    await createStaticSite(containers, projectId, `bench-deploy-${String.fromCharCode(97 + index)}-${suffix}`);
    const byHand = path.join(workDir, `by-hand-${index}`);
    const cloneMs = await timed(() => run('git', ['clone', '--quiet', '--depth', '1', '--single-branch', address, byHand], { maxBuffer: 16 * 1024 * 1024 }));
    let first: DeployFinished | undefined;
    const firstMs = await timed(async () => {
      first = await deploy(projectId);
    });

    // One file changes in a new commit.
    await host.pushCommit('groot', { 'index.html': `<h1>Versie ${index + 2}</h1>\n` }, { message: `Update ${index + 2}` });
    const fetchMs = await timed(async () => {
      await run('git', ['-C', byHand, 'fetch', '--quiet', '--depth', '1', 'origin', 'main']);
      await run('git', ['-C', byHand, 'checkout', '--quiet', '--force', 'FETCH_HEAD']);
    });
    const firstPhases = phaseText(projectId);
    const updateMs = await timed(() => deploy(projectId));
    console.log(`  first deploy phases: ${firstPhases}; update phases: ${phaseText(projectId)}`);
    rows.push({ cloneMs, firstMs, fetchMs, updateMs, files: first?.files ?? 0, mb: Number(first?.bytes ?? 0) / 1024 / 1024 });
    console.log(
      `run ${index + 1}: first deploy ${seconds(firstMs)} (git clone by hand ${seconds(cloneMs)}), update of one file ${seconds(updateMs)} (git fetch + checkout by hand ${seconds(fetchMs)}); ${first?.files ?? 0} files, ${(Number(first?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB copied`,
    );
    await rm(byHand, { recursive: true, force: true });
  }

  const verdict = (agentMs: number, handMs: number): string => {
    const limit = handMs * 1.2 + 1000;
    return `${seconds(agentMs)} against ${seconds(handMs)} by hand: ${(agentMs / handMs).toFixed(2)}×, goal ≤ ${seconds(limit)} ${agentMs <= limit ? 'met' : 'NOT met'}`;
  };
  const firstMedian = median(rows.map((row) => row.firstMs));
  const cloneMedian = median(rows.map((row) => row.cloneMs));
  const updateMedian = median(rows.map((row) => row.updateMs));
  const fetchMedian = median(rows.map((row) => row.fetchMs));
  console.log(`\n${MEGABYTES} MB repository, ${RUNS} runs, medians:`);
  console.log(`  first deploy:        ${verdict(firstMedian, cloneMedian)}`);
  console.log(`  update of one file:  ${verdict(updateMedian, fetchMedian)}`);
} finally {
  await cleanups.run();
}
