/**
 * Issue 22's two leftovers on the real host agent and the real Docker engine (contract 1.6.0):
 *
 * - ListContainerStats: one sample of every running container the agent manages on its network
 *   (a busy one shows CPU, a limit shows as the limit), none of an unmanaged or stopped one, and
 *   callers within 15 s share one sweep.
 * - ListContainers: an exited managed container says Docker's OOMKilled and exit code (one that
 *   ran out of its 8 MB, one that exited with 3, one that exited cleanly).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerServiceClient } from '@devplein/proto/container';
import { ContainerStatsServiceClient } from '@devplein/proto/container_stats';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { unaryCall } from '../../support/clients/agent-calls.ts';
import { ensureWebImage, randomSuffix, recordedOomKill, testDocker } from '../../support/services/docker.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { networkCreateOptions } from '../../../host-agent/src/drivers/docker/project-network.ts';

const docker = testDocker();
const suffix = randomSuffix();
/** The agent's own network: it sweeps only the managed containers on it. */
const network = `devplein-test-sweep-${suffix}`;
const projectBase = 720_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
const names = {
  busy: `sweep-busy-${suffix}`,
  quiet: `sweep-quiet-${suffix}`,
  foreign: `sweep-foreign-${suffix}`,
  oom: `sweep-oom-${suffix}`,
  failed: `sweep-failed-${suffix}`,
  clean: `sweep-clean-${suffix}`,
};
const MB = 1024 * 1024;

let workDir: string;
let agent: TestAgent;
let stats: ContainerStatsServiceClient;
let containers: ContainerServiceClient;

const managed = (projectId: number) => ({ 'devplein.managed': 'true', 'devplein.project-id': String(projectId), 'devplein.domain': `p${projectId}.dev.test` });

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-sweep-'));
  const certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  // Made as the agent makes it (inter-container traffic off), so the agent keeps it as it is.
  const options = networkCreateOptions(network);
  await docker.createNetwork({ ...options, Labels: { ...options.Labels, 'devplein.test': 'true' } });
  agent = await startTestAgent({ certDir: workDir, dataDir: path.join(workDir, 'agent-data'), env: { AGENT_DOCKER_NETWORK: network } });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  stats = new ContainerStatsServiceClient(agent.address, credentials);
  containers = new ContainerServiceClient(agent.address, credentials);
  const image = await ensureWebImage();
  const make = (name: string, labels: Record<string, string>, cmd: string[] | undefined, memory = 64 * MB) =>
    docker.createContainer({ name, Image: image, ...(cmd ? { Cmd: cmd } : {}), Labels: labels, HostConfig: { Init: true, NetworkMode: network, Memory: memory, MemorySwap: memory } });
  const made = await Promise.all([
    make(names.busy, managed(projectBase + 1), ['/bin/sh', '-c', 'while :; do :; done']),
    make(names.quiet, managed(projectBase + 2), undefined),
    make(names.foreign, {}, undefined),
    make(names.failed, managed(projectBase + 4), ['/bin/sh', '-c', 'exit 3']),
    make(names.clean, managed(projectBase + 5), ['/bin/true']),
  ]);
  await Promise.all(made.map((container) => container.start()));
  const exited = (name: string) =>
    waitFor(async () => !(await docker.getContainer(name).inspect()).State.Running, { description: `${name} to exit`, timeoutMs: 60_000, intervalMs: 200 });
  await Promise.all([names.failed, names.clean].map(exited));
  // tail buffers /dev/zero without end: the kernel kills it at 8 MB.
  await recordedOomKill(docker, names.oom, async () => {
    await (await make(names.oom, managed(projectBase + 3), ['tail', '/dev/zero'], 8 * MB)).start();
    await exited(names.oom);
  });
}, 120_000);

afterAll(async () => {
  stats?.close();
  containers?.close();
  await Promise.all(Object.values(names).map((name) => docker.getContainer(name).remove({ force: true }).catch(() => undefined)));
  await agent?.stop();
  await docker.getNetwork(network).remove().catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ListContainerStats on the Docker engine', { timeout: 120_000 }, () => {
  it('samples every running managed container on its network once, shared by the callers of the next 15 s', async () => {
    const [first, second] = await Promise.all([unaryCall(stats, stats.listContainerStats, {}, 30_000), unaryCall(stats, stats.listContainerStats, {}, 30_000)]);
    const byName = new Map(first.containers.map((entry) => [entry.name, entry]));
    expect([...byName.keys()].sort()).toEqual([names.busy, names.quiet].sort());
    const busy = byName.get(names.busy);
    expect(busy?.projectId).toBe(projectBase + 1);
    expect(busy?.stats?.memoryLimitBytes).toBe(64 * MB);
    // A shell loop keeps a CPU busy: well above an idle web server.
    expect(busy?.stats?.cpuPercent).toBeGreaterThan(byName.get(names.quiet)?.stats?.cpuPercent ?? 0);
    expect(busy?.stats?.cpuPercent).toBeGreaterThan(10);
    expect(byName.get(names.quiet)?.stats?.memoryUsedBytes).toBeGreaterThan(0);
    // Both callers got the same sweep, and so does one right after.
    expect(second.sweptAt).toEqual(first.sweptAt);
    expect((await unaryCall(stats, stats.listContainerStats, {}, 30_000)).sweptAt).toEqual(first.sweptAt);
  });
});

describe('ListContainers: how an exited managed container ended', { timeout: 120_000 }, () => {
  it('carries OOMKilled and the exit code of exited managed containers only', async () => {
    const listed = await unaryCall(containers, containers.listContainers, { projectIds: [], includeUnmanaged: false }, 30_000);
    const byName = new Map(listed.containers.map((container) => [container.names[0]?.slice(1), container]));
    expect(byName.get(names.oom)).toMatchObject({ state: 'exited', oomKilled: true, exitCode: 137 });
    expect(byName.get(names.failed)).toMatchObject({ state: 'exited', oomKilled: false, exitCode: 3 });
    expect(byName.get(names.clean)).toMatchObject({ state: 'exited', oomKilled: false, exitCode: 0 });
    expect(byName.get(names.busy)).toMatchObject({ state: 'running', oomKilled: false, exitCode: 0 });
    expect(byName.has(names.foreign)).toBe(false);
    expect((await docker.getContainer(names.oom).inspect()).State.OOMKilled).toBe(true);
  });
});
