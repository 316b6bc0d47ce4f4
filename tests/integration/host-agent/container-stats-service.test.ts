/**
 * ContainerStatsService (contract 1.6.0) of the real host agent on the real Docker engine: a
 * container with a memory limit reports that limit, a CPU % and its processes; a watch streams
 * samples; a container that ran out of memory reports Docker's OOMKilled and its restarts; a
 * container the agent does not manage is refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContainerStats, ContainerStatsServiceClient, type WatchContainerStatsResponse } from '@devplein/proto/container_stats';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { contractMetadata, refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { ensureWebImage, randomSuffix, recordedOomKill, testDocker } from '../../support/services/docker.ts';
import { waitFor } from '../../support/clients/ports.ts';

const docker = testDocker();
const suffix = randomSuffix();
const projectBase = 710_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
const names = { limited: `stats-limited-${suffix}`, oom: `stats-oom-${suffix}`, foreign: `stats-foreign-${suffix}` };
const MB = 1024 * 1024;

let workDir: string;
let agent: TestAgent;
let client: ContainerStatsServiceClient;

/** By name: a lookup by project id only searches the agent's own project network, which these containers are not on. */
const stats = async (name: string): Promise<ContainerStats> => {
  const answer = await unaryCall(client, client.getContainerStats, { container: { ref: { $case: 'name', value: name } } }, 20_000);
  if (!answer.stats) throw new Error('no stats in the answer');
  return answer.stats;
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-cstats-'));
  const certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  // Samples every 0.5 s (default 5 s), so a watch shows three quickly.
  agent = await startTestAgent({ certDir: workDir, dataDir: path.join(workDir, 'agent-data'), env: { AGENT_STATS_INTERVAL_MS: '500' } });
  client = new ContainerStatsServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  const image = await ensureWebImage();
  const managed = (projectId: number) => ({ 'devplein.managed': 'true', 'devplein.project-id': String(projectId) });
  const limited = await docker.createContainer({
    name: names.limited,
    Image: image,
    Labels: managed(projectBase + 1),
    HostConfig: { Init: true, Memory: 64 * MB, MemorySwap: 64 * MB },
  });
  const foreign = await docker.createContainer({ name: names.foreign, Image: image, HostConfig: { Init: true } });
  await Promise.all([limited.start(), foreign.start()]);
  // Runs out of its 8 MB at the first start (tail buffers /dev/zero without end); the restart
  // policy starts it again, and then it serves (the marker in its writable layer survives).
  await recordedOomKill(docker, names.oom, async () => {
    const oom = await docker.createContainer({
      name: names.oom,
      Image: image,
      Cmd: ['/bin/sh', '-c', 'if [ -e /once ]; then exec httpd -f -p 80 -h /www; fi; touch /once; tail /dev/zero'],
      Labels: managed(projectBase + 2),
      HostConfig: { Init: true, Memory: 8 * MB, MemorySwap: 8 * MB, RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 5 } },
    });
    await oom.start();
    await waitFor(
      async () => {
        const { State, RestartCount } = await oom.inspect();
        return State.Running && !State.Restarting && RestartCount >= 1;
      },
      { description: 'the OOM-killed container to run again', timeoutMs: 60_000, intervalMs: 200 },
    );
  });
}, 180_000);

afterAll(async () => {
  client?.close();
  await Promise.all(Object.values(names).map((name) => docker.getContainer(name).remove({ force: true }).catch(() => undefined)));
  await agent?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ContainerStatsService on the Docker engine', { timeout: 120_000 }, () => {
  it('reports the memory limit, a CPU %, the processes and the writable layer of a running container', async () => {
    const sample = await stats(names.limited);
    expect(sample.memoryLimitBytes).toBe(64 * MB);
    expect(sample.memoryUsedBytes).toBeGreaterThan(0);
    expect(sample.memoryUsedBytes).toBeLessThan(64 * MB);
    expect(typeof sample.cpuPercent).toBe('number');
    expect(sample.cpuPercent).toBeGreaterThanOrEqual(0);
    expect(sample.onlineCpus).toBeGreaterThanOrEqual(1);
    expect(sample.pids).toBeGreaterThanOrEqual(1);
    expect(sample.oomKilled).toBe(false);
    expect(sample.restartCount).toBe(0);
    expect(sample.sizeRwAt).toBeInstanceOf(Date);
    expect(sample.sizeRwBytes).toBeGreaterThanOrEqual(0);
  });

  it('streams a sample every interval until the client cancels', async () => {
    const call = client.watchContainerStats({ container: { ref: { $case: 'name', value: names.limited } } }, contractMetadata());
    const seen: ContainerStats[] = [];
    await new Promise<void>((resolve, reject) => {
      call.on('data', (message: WatchContainerStatsResponse) => {
        if (message.stats) seen.push(message.stats);
        if (seen.length === 3) resolve();
      });
      call.on('error', (error: grpc.ServiceError) => (error.code === grpc.status.CANCELLED ? resolve() : reject(error)));
    });
    call.cancel();
    expect(seen).toHaveLength(3);
    const times = seen.map((sample) => sample.readAt?.getTime() ?? 0);
    expect(times[2]).toBeGreaterThan(times[0] ?? 0);
    for (const sample of seen) expect(sample.memoryLimitBytes).toBe(64 * MB);
    // Samples after the first carry a CPU % computed from two samples (a number, not NaN).
    expect(Number.isFinite(seen[2]?.cpuPercent)).toBe(true);
  });

  it('reports OOMKilled and the restart count of a container that ran out of memory', async () => {
    let last: ContainerStats | undefined;
    await waitFor(
      async () => {
        try {
          last = await stats(names.oom);
        } catch {
          return false; // restarting: not running at this moment
        }
        return last.oomKilled && last.restartCount >= 1;
      },
      { description: 'the OOM-killed container running again with OOMKilled set', timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(last?.memoryLimitBytes).toBe(8 * MB);
    const inspected = await docker.getContainer(names.oom).inspect();
    expect(inspected.State.OOMKilled).toBe(true);
    expect(last?.restartCount).toBe(inspected.RestartCount);
  });

  it('refuses a container the agent does not manage, one that does not exist, and one that is not running', async () => {
    expect((await refusal(unaryCall(client, client.getContainerStats, { container: { ref: { $case: 'name', value: names.foreign } } }))).code).toBe(grpc.status.PERMISSION_DENIED);
    expect((await refusal(unaryCall(client, client.getContainerStats, { container: { ref: { $case: 'projectId', value: projectBase + 9 } } }))).code).toBe(grpc.status.NOT_FOUND);
    await docker.getContainer(names.limited).stop({ t: 0 });
    expect((await refusal(stats(names.limited))).code).toBe(grpc.status.FAILED_PRECONDITION);
  });
});
