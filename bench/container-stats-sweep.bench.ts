/**
 * The teachers' top lists (issue 22): what one ListContainerStats sweep of N running managed
 * containers costs the host — wall time of the call, and CPU seconds of the agent, dockerd and
 * containerd during it — and what a call answered from the agent's 15 s cache costs.
 *
 *   npm run bench -- container-stats-sweep                (N = 50, 3 sweeps)
 *   BENCH_SWEEP_CONTAINERS=20 BENCH_SWEEP_RUNS=5 npm run bench -- container-stats-sweep
 *
 * Each sweep waits until the previous one left the agent's cache (16 s), so every run is a real sweep.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { ContainerStatsServiceClient } from '@devplein/proto/container_stats';
import { networkCreateOptions } from '../host-agent/src/drivers/docker/project-network.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../tests/support/services/agent.ts';
import { unaryCall } from '../tests/support/clients/agent-calls.ts';
import { ensureDockerEngine, ensureWebImage, randomSuffix, testDocker } from '../tests/support/services/docker.ts';
import { Cleanups } from './lib/cleanups.ts';
import { pidOf, startBusyboxContainers } from './lib/busybox-containers.ts';
import { cpuSeconds } from './lib/process-cpu.ts';

const CONTAINERS = Number(process.env.BENCH_SWEEP_CONTAINERS ?? 50);
const RUNS = Number(process.env.BENCH_SWEEP_RUNS ?? 3);
const suffix = randomSuffix();
const network = `bench-sweep-${suffix}`;
const docker = testDocker();
const cleanups = new Cleanups();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  await ensureDockerEngine();
  const image = await ensureWebImage();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-sweep-'));
  cleanups.add('work dir', () => rm(workDir, { recursive: true, force: true }));
  const options = networkCreateOptions(network);
  await docker.createNetwork({ ...options, Labels: { ...options.Labels, 'devplein.test': 'true' } });
  cleanups.add('network', () => docker.getNetwork(network).remove().catch(() => undefined));
  const certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const agent: TestAgent = await startTestAgent({ certDir: workDir, dataDir: path.join(workDir, 'agent-data'), env: { AGENT_DOCKER_NETWORK: network } });
  cleanups.add('agent', () => agent.stop());

  console.log(`Starting ${CONTAINERS} containers (busybox httpd, 64 MB limit) on the agent's network …`);
  await startBusyboxContainers(docker, cleanups, { prefix: `bench-sweep-${suffix}`, count: CONTAINERS, image, projectIdBase: 810_000_000, network });
  const pids = { agent: agent.pid(), dockerd: await pidOf('dockerd'), containerd: await pidOf('containerd') };
  const client = new ContainerStatsServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  cleanups.add('client', async () => client.close());
  await sleep(3_000);

  const cpuNow = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const rows: Array<{ ms: number; cpu: Record<string, number>; seen: number; cachedMs: number }> = [];
  for (let run = 0; run < RUNS; run += 1) {
    if (run > 0) await sleep(16_000);
    const before = cpuNow();
    const started = performance.now();
    const answer = await unaryCall(client, client.listContainerStats, {}, 60_000);
    const ms = performance.now() - started;
    const after = cpuNow();
    const cachedStart = performance.now();
    await unaryCall(client, client.listContainerStats, {}, 60_000);
    const cachedMs = performance.now() - cachedStart;
    const cpu = Object.fromEntries(Object.keys(pids).map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)]));
    rows.push({ ms, cpu, seen: answer.containers.length, cachedMs });
  }

  console.log('');
  console.log(`One sweep of ${CONTAINERS} running containers (${os.cpus().length} cores here), ${RUNS} runs:`);
  for (const [index, row] of rows.entries()) {
    const total = Object.values(row.cpu).reduce((sum, value) => sum + value, 0);
    const parts = Object.entries(row.cpu)
      .map(([name, seconds]) => `${name} ${(seconds * 1000).toFixed(0)} ms`)
      .join(', ');
    console.log(`  run ${index + 1}: ${row.ms.toFixed(0)} ms wall, ${row.seen} containers; CPU ${(total * 1000).toFixed(0)} ms (${parts}); from the cache ${row.cachedMs.toFixed(1)} ms`);
  }
} finally {
  await cleanups.run();
}
