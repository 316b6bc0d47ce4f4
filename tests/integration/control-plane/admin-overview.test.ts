/**
 * The teachers' overview (issue 22): the sampler (jobs/host-sampler.ts) against a fake agent and
 * a dev server that does not answer, on a real PostgreSQL — one row per host per minute, no row
 * (never zeros) for the silent one, idle auto-stops recorded once, 7/31-day retention — and the
 * three GET routes through the real control plane: admins only, 422 with Dutch field errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewAutoStopsJson, OverviewCohortsJson, OverviewHostsJson, OverviewTopContainersJson } from '@devplein/contract/overview';
import { createAgentClient, type AgentClient } from '../../../control-plane/src/agent/agent-client.ts';
import { createAgentFleet, type AgentFleet } from '../../../control-plane/src/agent/agent-fleet.ts';
import { sampleHosts } from '../../../control-plane/src/jobs/host-sampler.ts';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { agentCertEnv, makeTestCerts, type TestCerts } from '../../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fakes/fake-agent.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { AutoStopReason } from '@devplein/proto/container';
import { ADMIN, DEVELOPER, DOCENT, STUDENT } from '../../support/stacks/hosting-stack.ts';

const DAY_MS = 86_400_000;
const silent = pino({ level: 'silent' });

let certDir: string;
let certs: TestCerts;
let agent: FakeAgent;
let deadAddress: string;
const clients: AgentClient[] = [];
let fleet: AgentFleet;

const stack = seededControlPlane({
  before: async () => {
    certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-admin-overview-'));
    certs = await makeTestCerts(certDir);
    agent = await startFakeAgent({ certs });
    deadAddress = `localhost:${await findFreePort()}`;
    const linksFile = path.join(certDir, 'agents.json');
    writeFileSync(
      linksFile,
      JSON.stringify([
        { name: 'dev1', address: agent.address, siteDomain: 'dev.devplein.test' },
        { name: 'dev2', address: deadAddress, siteDomain: 'dev2.devplein.test' },
      ]),
    );
    return { AGENT_LINKS_FILE: linksFile, SITE_DOMAIN: 'dev.devplein.test', AGENT_ADDRESS: '', ...agentCertEnv(certs), AGENT_DEADLINE_MS: '2000', UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *' };
  },
  after: async () => {
    await agent?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  },
});
const as = signedInSessions(() => stack.app.url);

// The fleet the sampler tests hand to sampleHosts directly: the same two dev servers, clients of this test's own.
beforeAll(async () => {
  const [caPem, certPem, keyPem] = await Promise.all([readFile(certs.ca), readFile(certs.clientCert), readFile(certs.clientKey)]);
  const client = (address: string) => {
    const made = createAgentClient({ address, caPem, certPem, keyPem, logger: silent, deadlineMs: 2000 });
    clients.push(made);
    return made;
  };
  const settings = { studentDbHost: '127.0.0.1', studentDbPort: 3306, dbAdminUrl: '' };
  fleet = createAgentFleet(
    [
      { name: 'dev1', address: agent.address, siteDomain: 'dev.devplein.test', ...settings, client: client(agent.address) },
      { name: 'dev2', address: deadAddress, siteDomain: 'dev2.devplein.test', ...settings, client: client(deadAddress) },
    ],
    'dev.devplein.test',
  );
});

afterAll(() => {
  for (const client of clients) client.close();
});

const samplesOf = (host: string) => stack.database.knex('host_samples').where({ host }).orderBy('sampled_at');

describe('the sampler', () => {
  it('stores one row per answering dev server per minute, and none for the one that does not answer', async () => {
    agent.addManaged({ name: 'proef-een', projectId: 9001, domain: 'proef-een.dev.devplein.test' });
    agent.addManaged({ name: 'proef-twee', projectId: 9002, domain: 'proef-twee.dev.devplein.test', state: 'exited' });
    agent.cpu = { cores: 4, load1m: 2, load5m: 1, load15m: 1 };
    agent.memory = { totalBytes: 16e9, availableBytes: 6e9 };
    const at = new Date('2026-11-20T10:15:42Z');
    const round = await sampleHosts({ knex: stack.database.knex, agents: fleet, logger: silent, now: () => at });
    expect(round.sampled).toEqual(['dev1']);
    expect(round.failed).toEqual(['dev2']);

    const rows = await samplesOf('dev1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ cpu_cores: 4, memory_total_bytes: 16e9, memory_available_bytes: 6e9 });
    expect(new Date(rows[0].sampled_at).toISOString()).toBe('2026-11-20T10:15:00.000Z');
    expect(rows[0].load_1m).toBeCloseTo(2);
    expect(rows[0].disks).toEqual([
      { name: 'docker', totalBytes: 100e9, availableBytes: 40e9 },
      { name: 'agent', totalBytes: 100e9, availableBytes: 40e9 },
    ]);
    expect(rows[0].managed_containers).toEqual({ running: 1, exited: 1 });
    expect(await samplesOf('dev2')).toHaveLength(0);

    // The same minute again (a second control plane, a retried tick): still one row.
    await sampleHosts({ knex: stack.database.knex, agents: fleet, logger: silent, now: () => new Date('2026-11-20T10:15:59Z') });
    expect(await samplesOf('dev1')).toHaveLength(1);
  });

  it('records an idle auto-stop from the container event, and from the listing when the event was missed; once each', async () => {
    const stoppedAt = new Date(Date.now() - 3_600_000);
    agent.addManaged({ name: 'proef-slaap', projectId: 9003, domain: 'proef-slaap.dev.devplein.test' });
    // The stop's event reaches the running control plane's relay, which records it.
    agent.autoStop('proef-slaap', { stoppedAt, lastActivityAt: new Date(stoppedAt.getTime() - 7_200_000), idleAfterSeconds: 7200 });
    await waitFor(async () => (await stack.database.knex('idle_auto_stops').where({ container_name: 'proef-slaap' })).length === 1, { description: 'the auto-stop of proef-slaap recorded from its event', timeoutMs: 10_000 });

    // A stop whose event nobody heard (the control plane was down): the sampler finds it in the listing.
    const missed = agent.addManaged({ name: 'proef-gemist', projectId: 9004, domain: 'proef-gemist.dev.devplein.test', state: 'exited' });
    missed.autoStop = { reason: AutoStopReason.AUTO_STOP_REASON_IDLE, stoppedAt, lastActivityAt: stoppedAt, idleAfterSeconds: 7200 };
    const first = await sampleHosts({ knex: stack.database.knex, agents: fleet, logger: silent });
    const second = await sampleHosts({ knex: stack.database.knex, agents: fleet, logger: silent });
    expect(first.autoStopsRecorded).toBe(1);
    expect(second.autoStopsRecorded).toBe(0);
    const rows = await stack.database.knex('idle_auto_stops').whereIn('container_name', ['proef-slaap', 'proef-gemist']).orderBy('project_id');
    expect(rows.map((row) => [row.host, row.container_name, row.project_id, new Date(row.stopped_at).toISOString()])).toEqual([
      ['dev1', 'proef-slaap', 9003, stoppedAt.toISOString()],
      ['dev1', 'proef-gemist', 9004, stoppedAt.toISOString()],
    ]);
  });

  it('keeps 7 days of samples and 31 days of auto-stops', async () => {
    const now = new Date();
    const old = (days: number) => new Date(now.getTime() - days * DAY_MS);
    await stack.database.knex('host_samples').insert([
      { host: 'dev1', sampled_at: old(8), disks: '[]' },
      { host: 'dev1', sampled_at: old(6.9), disks: '[]' },
    ]);
    await stack.database.knex('idle_auto_stops').insert([
      { host: 'dev1', container_id: 'c-old', container_name: 'oud', stopped_at: old(32) },
      { host: 'dev1', container_id: 'c-recent', container_name: 'recent', stopped_at: old(29) },
    ]);
    const round = await sampleHosts({ knex: stack.database.knex, agents: fleet, logger: silent, now: () => now });
    expect(round.pruned).toEqual({ samples: 1, autoStops: 1 });
    expect(await stack.database.knex('host_samples').where('sampled_at', '<', old(7)).count<{ count: number }[]>('* as count')).toEqual([{ count: 0 }]);
    expect((await stack.database.knex('idle_auto_stops').pluck('container_name')).sort()).toEqual(['proef-gemist', 'proef-slaap', 'recent']);
  });
});

describe('GET /api/admin/overview/*', () => {
  it('gives per dev server its samples of the window as columns and its containers now', async () => {
    const now = Date.now();
    const minute = (back: number) => new Date(Math.floor(now / 60_000) * 60_000 - back * 60_000);
    await stack.database.knex('host_samples').where({ host: 'dev1' }).delete();
    await stack.database.knex('host_samples').insert([
      { host: 'dev1', sampled_at: minute(30 * 60), cpu_cores: 2, load_1m: 1, memory_total_bytes: 8e9, memory_available_bytes: 4e9, disks: '[]', containers: '{"running":9}', managed_containers: '{"running":9}' },
      { host: 'dev1', sampled_at: minute(2), cpu_cores: 2, load_1m: 1, memory_total_bytes: 8e9, memory_available_bytes: 2e9, disks: JSON.stringify([{ name: 'docker', totalBytes: 100e9, availableBytes: 30e9 }]), containers: '{"running":3,"exited":1}', managed_containers: '{"running":2,"exited":1}' },
      { host: 'dev1', sampled_at: minute(1), cpu_cores: 2, load_1m: 3, memory_total_bytes: 8e9, memory_available_bytes: null, disks: '[]', containers: null, managed_containers: null },
    ]);
    const admin = await as(ADMIN);
    const { status, body } = await admin.json<OverviewHostsJson>('GET', '/api/admin/overview/hosts');
    expect(status).toBe(200);
    expect(body.resolutionSeconds).toBe(60);
    expect(body.servers.map((server) => server.name)).toEqual(['dev1', 'dev2']);
    const [dev1, dev2] = body.servers;
    // The 30-hour-old sample is outside the default 24 hours.
    expect(dev1?.series.times).toEqual([minute(2), minute(1)].map((date) => date.getTime() / 1000));
    expect(dev1?.series.loadPerCore).toEqual([0.5, 1.5]);
    expect(dev1?.series.memoryUsedBytes).toEqual([6e9, null]);
    expect(dev1?.series.disks).toEqual([{ name: 'docker', totalBytes: [100e9, null], availableBytes: [30e9, null] }]);
    // The latest sample with container counts.
    expect(dev1?.containersNow).toEqual({ sampledAt: minute(2).toISOString(), byState: { running: 3, exited: 1 }, managedByState: { running: 2, exited: 1 } });
    expect(dev2).toMatchObject({ name: 'dev2', containersNow: null, series: { times: [], disks: [] } });

    const longer = await admin.json<OverviewHostsJson>('GET', '/api/admin/overview/hosts?hours=48');
    expect(longer.body.servers[0]?.series.times).toHaveLength(3);
  });

  it('counts idle auto-stops per school day over the window, days without stops included', async () => {
    await stack.database.knex('idle_auto_stops').delete();
    const today = new Date();
    await stack.database.knex('idle_auto_stops').insert([
      { host: 'dev1', container_id: 'a', container_name: 'a', stopped_at: today },
      { host: 'dev2', container_id: 'b', container_name: 'b', stopped_at: today },
      { host: 'dev1', container_id: 'c', container_name: 'c', stopped_at: new Date(today.getTime() - 3 * DAY_MS) },
      { host: 'dev1', container_id: 'd', container_name: 'd', stopped_at: new Date(today.getTime() - 40 * DAY_MS) },
    ]);
    const { status, body } = await (await as(DOCENT)).json<OverviewAutoStopsJson>('GET', '/api/admin/overview/auto-stops');
    expect(status).toBe(200);
    expect(body.days).toHaveLength(30);
    expect(body.total).toBe(3);
    expect(body.hosts).toEqual(['dev1', 'dev2']);
    expect(body.days.at(-1)).toMatchObject({ total: 2, byHost: { dev1: 1, dev2: 1 } });
    expect(body.days.at(-4)).toMatchObject({ total: 1, byHost: { dev1: 1 } });
    expect(body.days.filter((day) => day.total > 0)).toHaveLength(2);
    const week = await (await as(ADMIN)).json<OverviewAutoStopsJson>('GET', '/api/admin/overview/auto-stops?days=7');
    expect(week.body.days).toHaveLength(7);
  });

  it('counts projects per cohort of their first member, approved and not', async () => {
    const knex = stack.database.knex;
    const expected = await knex('projects').count<{ count: number }[]>('* as count');
    await knex('projects').insert({ name: 'zonder-leden', domain: 'zonder-leden.dev.devplein.test', validated: null });
    const { status, body } = await (await as(ADMIN)).json<OverviewCohortsJson>('GET', '/api/admin/overview/cohorts');
    expect(status).toBe(200);
    const sum = body.cohorts.reduce((total, row) => total + row.approved + row.notApproved, 0);
    expect(sum).toBe(Number(expected[0]?.count) + 1);
    expect(body.cohorts.find((row) => row.cohort === 'Niet ingedeeld')?.notApproved).toBeGreaterThanOrEqual(1);
  });

  it('gives per dev server the top 10 running containers by CPU and by memory with project and owner; an unreachable one is unavailable, not a 500', async () => {
    const knex = stack.database.knex;
    // A project of devplein on dev1 with a member, whose container uses the most memory.
    const owner = await knex('project_user as pu').join('users as u', 'u.id', 'pu.user_id').join('projects as p', 'p.id', 'pu.project_id').whereNull('p.host').orderBy(['pu.project_id', 'pu.position', 'u.id']).first('p.id as projectId', 'p.name as projectName', 'p.domain as domain');
    expect(owner).toBeDefined();
    const members = await knex('project_user as pu').join('users as u', 'u.id', 'pu.user_id').where('pu.project_id', owner.projectId).orderBy(['pu.position', 'u.id']).select('u.id', 'u.name');
    agent.addManaged({ name: 'top-project', projectId: owner.projectId, domain: owner.domain });
    agent.containerStats.set('top-project', { cpuPercent: 1, memoryUsedBytes: 900 * 1024 * 1024 });
    for (let i = 0; i < 12; i += 1) {
      agent.addManaged({ name: `top-${String(i).padStart(2, '0')}`, projectId: 99_000 + i, domain: `top-${i}.dev.devplein.test` });
      agent.containerStats.set(`top-${String(i).padStart(2, '0')}`, { cpuPercent: 10 + i * 5, memoryUsedBytes: (100 + i) * 1024 * 1024 });
    }
    agent.addManaged({ name: 'top-gestopt', projectId: 99_100, domain: 'top-gestopt.dev.devplein.test', state: 'exited' });
    const sweepsBefore = agent.statsSweeps;
    const { status, body } = await (await as(ADMIN)).json<OverviewTopContainersJson>('GET', '/api/admin/overview/top-containers');
    expect(status).toBe(200);
    expect(agent.statsSweeps).toBe(sweepsBefore + 1);
    const [dev1, dev2] = body.servers;
    expect(dev2).toEqual({ name: 'dev2', status: 'unavailable', sampledAt: null, running: 0, byCpu: [], byMemory: [] });
    expect(dev1?.status).toBe('ok');
    expect(dev1?.byCpu).toHaveLength(10);
    expect(dev1?.byMemory).toHaveLength(10);
    expect(dev1?.byCpu.slice(0, 3).map((entry) => [entry.name, entry.cpuPercent])).toEqual([['top-11', 65], ['top-10', 60], ['top-09', 55]]);
    expect(dev1?.byCpu.some((entry) => entry.name === 'top-gestopt')).toBe(false);
    expect(dev1?.byMemory[0]).toEqual({
      name: 'top-project',
      project: { id: owner.projectId, name: owner.projectName, domain: owner.domain },
      owner: { id: members[0].id, name: members[0].name },
      cpuPercent: 1,
      memoryUsedBytes: 900 * 1024 * 1024,
      memoryLimitBytes: 512 * 1024 * 1024,
    });
    // A container without a project of devplein is listed with its name only.
    expect(dev1?.byCpu[0]).toMatchObject({ project: null, owner: null });

    // An agent older than 1.6.0 answers UNIMPLEMENTED: that server is "too old", the others still shown.
    agent.unimplementedMethods.add('listContainerStats');
    try {
      const old = await (await as(ADMIN)).json<OverviewTopContainersJson>('GET', '/api/admin/overview/top-containers');
      expect(old.status).toBe(200);
      expect(old.body.servers.map((server) => server.status)).toEqual(['too-old', 'unavailable']);
    } finally {
      agent.unimplementedMethods.delete('listContainerStats');
    }
  });

  it('is for admins only: students and developers get 403, anonymous 401', async () => {
    for (const route of ['/api/admin/overview/hosts', '/api/admin/overview/auto-stops', '/api/admin/overview/cohorts', '/api/admin/overview/top-containers']) {
      expect((await (await as(STUDENT)).api('GET', route)).status).toBe(403);
      expect((await (await as(DEVELOPER)).api('GET', route)).status).toBe(403);
      expect((await (await as(null)).api('GET', route)).status).toBe(401);
    }
  });

  it('answers 422 with a Dutch field error for a window out of range, never 500', async () => {
    const admin = await as(ADMIN);
    for (const query of ['hours=0', 'hours=169', 'hours=abc', 'hours=1.5']) {
      const { status, body } = await admin.json<{ errors: Record<string, string[]> }>('GET', `/api/admin/overview/hosts?${query}`);
      expect(status, query).toBe(422);
      expect(body.errors.hours).toEqual(['Kies 1 tot en met 168 uur.']);
    }
    for (const query of ['days=0', 'days=32', 'days=-1']) {
      const { status, body } = await admin.json<{ errors: Record<string, string[]> }>('GET', `/api/admin/overview/auto-stops?${query}`);
      expect(status, query).toBe(422);
      expect(body.errors.days).toEqual(['Kies 1 tot en met 31 dagen.']);
    }
  });
});
