/**
 * HostStatsService.GetHostStats on the real agent: the real Docker engine, a throwaway Caddy
 * and MariaDB, the agent's own certificate and data dir. One broken part (MariaDB halted, Caddy
 * stopped, a WireGuard interface that does not exist) is reported in the answer, never as a
 * failed call.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GetHostStatsResponse, HostStatsServiceClient, type StateCount } from '@devplein/proto/host_stats';
import { CONTRACT_VERSION } from '@devplein/proto/version';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent, type TestCerts } from '../../support/services/agent.ts';
import { unaryCall } from '../../support/clients/agent-calls.ts';
import { startCaddy, type TestCaddy } from '../../support/services/caddy.ts';
import { startMariaDb, type TestMariaDb } from '../../support/services/mariadb.ts';
import { ensureWebImage, randomSuffix, testDocker } from '../../support/services/docker.ts';

let workDir: string;
let certs: TestCerts;
let agent: TestAgent;
let caddy: TestCaddy;
let mariadb: TestMariaDb;
let client: HostStatsServiceClient;
const docker = testDocker();
const containerName = `devplein-hoststats-${randomSuffix()}`;
/** A WireGuard interface name nobody uses: the agent must report it missing. */
const wgInterface = `wgst${randomSuffix().slice(0, 6)}`;

const stats = (): Promise<GetHostStatsResponse> => unaryCall(client, client.getHostStats, {}, 15_000);
const sum = (counts: StateCount[]): number => counts.reduce((total, each) => total + each.count, 0);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-hoststats-'));
  certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  [caddy, mariadb] = await Promise.all([startCaddy(), startMariaDb()]);
  agent = await startTestAgent({
    certDir: workDir,
    dataDir: path.join(workDir, 'agent-data'),
    env: {
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_MYSQL_URL: mariadb.adminUrl,
      AGENT_WG_INTERFACE: wgInterface,
      AGENT_PROBE_TIMEOUT_MS: '3000',
    },
  });
  client = new HostStatsServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  // A managed container that has exited: counted among the managed ones by its state.
  const image = await ensureWebImage();
  const container = await docker.createContainer({
    name: containerName,
    Image: image,
    Labels: { 'devplein.managed': 'true', 'devplein.project-id': '999001' },
    HostConfig: { Init: true },
  });
  await container.start();
  await container.stop({ t: 0 });
}, 120_000);

afterAll(async () => {
  client?.close();
  await docker
    .getContainer(containerName)
    .remove({ force: true })
    .catch(() => undefined);
  await agent?.stop();
  await Promise.all([caddy?.stop(), mariadb?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('GetHostStats', () => {
  it('reports every part, the disks, the containers by state, the certificate and the load', async () => {
    const answer = await stats();
    expect(answer.contractVersion).toBe(CONTRACT_VERSION);
    expect(answer.hostname).toBe(os.hostname());
    expect(answer.docker).toMatchObject({ ok: true });
    expect(answer.docker?.detail).toMatch(/^Docker \d/);
    expect(answer.proxy).toMatchObject({ ok: true });
    expect(answer.mysql?.ok, answer.mysql?.detail).toBe(true);
    expect(answer.mysql?.detail).toMatch(/MariaDB\/MySQL \d/);
    expect(answer.mysql?.detail).not.toContain('devplein_agent:');
    expect(answer.browser).toMatchObject({ ok: true, detail: 'Chromium op /usr/bin/chromium' });
    expect(answer.wireguard).toEqual({ ok: false, detail: `interface ${wgInterface} bestaat niet` });

    // Disks: the Docker data root (as the engine names it) and the agent's data dir, as statfs
    // says; the data dir is not made yet, so its nearest existing parent (where it will be) counts.
    const info = (await docker.info()) as { DockerRootDir: string };
    expect(answer.disks.map((disk) => [disk.name, disk.path])).toEqual([
      ['docker', info.DockerRootDir],
      ['agent', workDir],
    ]);
    for (const disk of answer.disks) {
      expect(disk.ok, disk.error).toBe(true);
      const own = await statfs(disk.path);
      expect(disk.totalBytes).toBe(own.blocks * own.bsize);
      expect(disk.availableBytes).toBeGreaterThan(0);
      expect(disk.availableBytes).toBeLessThanOrEqual(disk.totalBytes);
    }

    // Containers: the counts add up, and the exited managed container is among them.
    const containers = answer.containers;
    expect(containers?.known).toBe(true);
    expect(sum(containers?.byState ?? [])).toBe(containers?.total);
    expect(sum(containers?.managedByState ?? [])).toBe(containers?.managed);
    expect(containers?.managedByState.find((each) => each.state === 'exited')?.count).toBeGreaterThanOrEqual(1);

    // The certificate is the agent's own server certificate.
    const own = new X509Certificate(await readFile(certs.agentCert));
    expect(answer.certificate?.ok).toBe(true);
    expect(answer.certificate?.notAfter?.getTime()).toBe(new Date(own.validTo).getTime());

    // No backup has run on this host.
    expect(answer.lastBackup).toMatchObject({ known: false });

    expect(answer.cpu?.cores).toBe(os.availableParallelism());
    expect(answer.memory?.totalBytes).toBe(os.totalmem());
    expect(answer.memory?.availableBytes).toBeGreaterThan(0);
  });

  it('answers with the database marked broken while MariaDB is down, and sees it back afterwards', async () => {
    await mariadb.halt();
    try {
      const answer = await stats();
      expect(answer.mysql?.ok).toBe(false);
      expect(answer.mysql?.detail).toMatch(/antwoordt niet/);
      expect(answer.docker?.ok).toBe(true);
      expect(answer.proxy?.ok).toBe(true);
    } finally {
      await mariadb.resume();
    }
    expect((await stats()).mysql?.ok).toBe(true);
  });

  it('answers with the proxy marked broken while Caddy is stopped', async () => {
    await caddy.stop();
    try {
      const answer = await stats();
      expect(answer.proxy?.ok).toBe(false);
      expect(answer.proxy?.detail).toMatch(/antwoordt niet/);
      expect(answer.docker?.ok).toBe(true);
      expect(answer.mysql?.ok).toBe(true);
    } finally {
      await caddy.start();
    }
  });
});
