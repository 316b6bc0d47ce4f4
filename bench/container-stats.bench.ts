/**
 * Live container stats (issue 22): the CPU the host agent, dockerd and containerd use above idle
 * while N running containers are each watched, by C simulated clients over gRPC/mTLS
 * (WatchContainerStats; client i watches container i mod N, so with C > N the agent's sharing is
 * measured too: still one Docker stats stream per container). Target of the issue: 50
 * containers and 50 clients at ≤ 10 % of one core.
 *
 *   npm run bench -- container-stats                       (N = C = 50, 20 s per phase)
 *   BENCH_STATS_CONTAINERS=20 BENCH_STATS_CLIENTS=60 BENCH_STATS_SECONDS=30 BENCH_STATS_INTERVAL_MS=1000 npm run bench -- container-stats
 *
 * Phases on the same running containers: idle (nobody watches) for S seconds, then watched for S
 * seconds. Printed: CPU % of one core per process in each phase and the difference.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { ContainerStatsServiceClient, type WatchContainerStatsResponse } from '@devplein/proto/container_stats';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../tests/support/services/agent.ts';
import { contractMetadata } from '../tests/support/clients/agent-calls.ts';
import { ensureDockerEngine, ensureWebImage, randomSuffix, testDocker } from '../tests/support/services/docker.ts';
import { Cleanups } from './lib/cleanups.ts';
import { pidOf, startBusyboxContainers } from './lib/busybox-containers.ts';
import { cpuSeconds } from './lib/process-cpu.ts';

const CONTAINERS = Number(process.env.BENCH_STATS_CONTAINERS ?? 50);
const CLIENTS = Number(process.env.BENCH_STATS_CLIENTS ?? CONTAINERS);
const SECONDS = Number(process.env.BENCH_STATS_SECONDS ?? 20);
/** The agent's AGENT_STATS_INTERVAL_MS (its default: 5000). */
const INTERVAL_MS = Number(process.env.BENCH_STATS_INTERVAL_MS ?? 5_000);
const suffix = randomSuffix();
const docker = testDocker();
const cleanups = new Cleanups();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(pids: Record<string, number | undefined>, seconds: number): Promise<Record<string, number>> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const started = Date.now();
  await sleep(seconds * 1000);
  const wall = (Date.now() - started) / 1000;
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuSeconds(pid) - (before[name] ?? Number.NaN)) / wall) * 100]));
}

try {
  await ensureDockerEngine();
  const image = await ensureWebImage();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-stats-'));
  cleanups.add('work dir', () => rm(workDir, { recursive: true, force: true }));
  const certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const agent: TestAgent = await startTestAgent({ certDir: workDir, dataDir: path.join(workDir, 'agent-data'), env: { AGENT_STATS_INTERVAL_MS: String(INTERVAL_MS) } });
  cleanups.add('agent', () => agent.stop());

  console.log(`Starting ${CONTAINERS} containers (busybox httpd, 64 MB limit) …`);
  const names = await startBusyboxContainers(docker, cleanups, { prefix: `bench-stats-${suffix}`, count: CONTAINERS, image, projectIdBase: 800_000_000 });
  const pids = { agent: agent.pid(), dockerd: await pidOf('dockerd'), containerd: await pidOf('containerd') };
  // Let the starts settle before the idle phase.
  await sleep(3_000);
  console.log(`Idle: ${CONTAINERS} running, nobody watches (${SECONDS} s) …`);
  const idle = await measure(pids, SECONDS);

  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  const clients: ContainerStatsServiceClient[] = [];
  const calls: grpc.ClientReadableStream<WatchContainerStatsResponse>[] = [];
  let samples = 0;
  let failures = 0;
  for (let index = 0; index < CLIENTS; index += 1) {
    // One channel per simulated client, as separate control planes or connections would be.
    const client = new ContainerStatsServiceClient(agent.address, credentials, { 'grpc.use_local_subchannel_pool': 1 });
    clients.push(client);
    const call = client.watchContainerStats({ container: { ref: { $case: 'name', value: names[index % CONTAINERS] ?? '' } } }, contractMetadata());
    call.on('data', () => (samples += 1));
    call.on('error', (error: grpc.ServiceError) => {
      if (error.code !== grpc.status.CANCELLED) failures += 1;
    });
    calls.push(call);
  }
  cleanups.add('clients', async () => {
    for (const call of calls) call.cancel();
    for (const client of clients) client.close();
  });
  await sleep(3_000);
  const warmSamples = samples;
  console.log(`Watched: ${CLIENTS} clients on ${CONTAINERS} containers (${SECONDS} s) …`);
  const watched = await measure(pids, SECONDS);
  const rate = (samples - warmSamples) / SECONDS;

  console.log('');
  console.log(`CPU in % of one core (${os.cpus().length} cores here), idle → watched (difference):`);
  let total = 0;
  for (const name of Object.keys(pids)) {
    const difference = (watched[name] ?? 0) - (idle[name] ?? 0);
    total += difference;
    console.log(`  ${name.padEnd(11)} ${(idle[name] ?? 0).toFixed(1).padStart(5)} → ${(watched[name] ?? 0).toFixed(1).padStart(5)}  (${difference >= 0 ? '+' : ''}${difference.toFixed(1)})`);
  }
  console.log(`  ${'together'.padEnd(11)} ${total >= 0 ? '+' : ''}${total.toFixed(1)} % of one core above idle (target ≤ 10 % for 50 × 50)`);
  console.log(`Samples delivered: ${rate.toFixed(1)}/s to ${CLIENTS} clients (expected ~${((CLIENTS * 1000) / INTERVAL_MS).toFixed(1)}/s at one per ${INTERVAL_MS} ms), stream failures: ${failures}`);
} finally {
  await cleanups.run();
}
