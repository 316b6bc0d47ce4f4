/**
 * Health and metrics of both processes: the control plane's separate metrics listener
 * (METRICS_LISTEN) with the fake agent, and the real host agent's /healthz and /metrics
 * (AGENT_METRICS_LISTEN). The public app port never serves metrics.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, createAgentClient } from '../../../control-plane/src/agent/agent-client.ts';
import { recordBackupRun } from '../../../control-plane/src/commands/record-backup-run.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { ADMIN, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';

/** The value of one sample line (`name{labels} value`) whose labels include all of `labels`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (wanted) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Days from now until the Unix time `seconds`. */
const daysUntil = (seconds: number) => (seconds * 1000 - Date.now()) / 86_400_000;

/** The version in a workspace's package.json (what devplein_build_info reports without DEVPLEIN_VERSION). */
async function packageVersion(workspace: string): Promise<string> {
  return (JSON.parse(await readFile(new URL(`../../../${workspace}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
}

async function text(url: string): Promise<{ status: number; body: string; type: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') ?? '' };
}

describe('control plane metrics (METRICS_LISTEN)', () => {
  let stack: HostingStack;
  let metricsUrl: string;

  beforeAll(async () => {
    const port = await findFreePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    stack = await startHostingStack({ env: { METRICS_LISTEN: `127.0.0.1:${port}` } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('serves /healthz on the metrics port', async () => {
    const health = await text(`${metricsUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ database: 'up' });
  });

  it('counts requests by route template, agent calls, and containers by state', async () => {
    const project = await stack.project({ name: 'metriek1', members: [STUDENT] });
    stack.agent.addManaged({ name: 'metriek1', projectId: project.id, domain: 'metriek1.dev.devplein.test', state: 'running' });
    stack.agent.addManaged({ name: 'metriek-stil', projectId: 999_001, domain: 'metriek-stil.dev.devplein.test', state: 'exited' });
    const before = (await text(`${metricsUrl}/metrics`)).body;

    const student = await stack.as(STUDENT);
    const container = await student.json('GET', `/api/user/container/${project.name}`);
    expect(container.status).toBe(200);
    expect((await student.json('GET', '/api/user/dockers')).status).toBe(200);
    const admin = await stack.as(ADMIN);
    expect((await admin.json('GET', '/api/admin/agent')).status).toBe(200);

    const metrics = await text(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    const body = metrics.body;
    // Route templates, never raw paths with names or ids.
    expect(sample(body, 'devplein_http_requests_total', { method: 'GET', route: '/api/user/container/:name', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(body, 'devplein_http_requests_total', { route: '/api/user/dockers', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(body).not.toContain(`route="/api/user/container/${project.name}"`);
    expect(sample(body, 'devplein_http_request_duration_seconds_count', { route: '/api/user/container/:name' })).toBeGreaterThanOrEqual(1);
    // Agent calls rise (ListContainers is asked by the dockers pages and by every scrape).
    expect(sample(body, 'devplein_agent_calls_total', { method: 'ListContainers', outcome: 'ok' })).toBeGreaterThan(
      sample(before, 'devplein_agent_calls_total', { method: 'ListContainers', outcome: 'ok' }),
    );
    expect(sample(body, 'devplein_agent_call_duration_seconds_count', { method: 'ListContainers' })).toBeGreaterThanOrEqual(1);
    // The fake agent's managed containers, by state, collected at scrape time.
    const running = [...stack.agent.containers.values()].filter((c) => c.labels['devplein.managed'] === 'true' && c.state === 'running').length;
    expect(sample(body, 'devplein_containers', { state: 'running' })).toBe(running);
    expect(sample(body, 'devplein_containers', { state: 'exited' })).toBeGreaterThanOrEqual(1);
    expect(sample(body, 'devplein_agent_up')).toBe(1);
    // The event relay's stream to the agent is open (and counted as such).
    await waitFor(async () => sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_agent_streams_open', { method: 'WatchContainerEvents' }) === 1, {
      description: 'the event watch to count as one open stream',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    // Default process metrics are there too.
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toContain('devplein_thumbnail_captures_total');
  });

  it('counts thumbnail captures by outcome', async () => {
    const project = await stack.project({ name: 'metriek2', members: [STUDENT] });
    stack.agent.addManaged({ name: 'metriek2', projectId: project.id, domain: 'metriek2.dev.devplein.test', state: 'running' });
    const admin = await stack.as(ADMIN);
    const before = sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_thumbnail_captures_total');
    const answer = await admin.json('POST', `/api/admin/dockers/${project.id}/screenshot`);
    expect(answer.status).toBe(202);
    await waitFor(async () => sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_thumbnail_captures_total') > before, {
      description: 'the capture to be counted',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
  });

  it('leaves the container counts and reports devplein_agent_up 0 while the agent is down', async () => {
    const running = sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_containers', { state: 'running' });
    const watchesEnded = (body: string) => sample(body, 'devplein_agent_streams_total', { method: 'WatchContainerEvents' });
    const endedBefore = watchesEnded((await text(`${metricsUrl}/metrics`)).body);
    await stack.agent.stop();
    try {
      const body = (await text(`${metricsUrl}/metrics`)).body;
      expect(sample(body, 'devplein_agent_up')).toBe(0);
      expect(sample(body, 'devplein_containers', { state: 'running' })).toBe(running);
      // The event watch ended with the agent, as a failure, not as 'ok'.
      await waitFor(async () => watchesEnded((await text(`${metricsUrl}/metrics`)).body) > endedBefore, {
        description: 'the broken event watch to be counted',
        timeoutMs: 20_000,
        intervalMs: 200,
      });
      expect(sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_agent_streams_total', { method: 'WatchContainerEvents', outcome: 'ok' })).toBe(0);
    } finally {
      await stack.agent.start();
    }
    // The relay reconnects: one open watch again.
    await waitFor(async () => sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_agent_streams_open', { method: 'WatchContainerEvents' }) === 1, {
      description: 'the event watch to be open again',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });

  it('reports the build, the backups of backup_runs and the link certificates (make-certs.sh: CA 10 years, leaves 825 days)', async () => {
    let body = (await text(`${metricsUrl}/metrics`)).body;
    expect(sample(body, 'devplein_build_info', { version: await packageVersion('control-plane'), node: process.version })).toBe(1);
    expect(daysUntil(sample(body, 'devplein_certificate_expiry_timestamp_seconds', { certificate: 'ca' }))).toBeCloseTo(3650, 0);
    expect(daysUntil(sample(body, 'devplein_certificate_expiry_timestamp_seconds', { certificate: 'control-plane' }))).toBeCloseTo(825, 0);
    // The seeded link pins no certificate: no agent series until a join or renewal records one.
    expect(body).not.toContain('devplein_certificate_expiry_timestamp_seconds{certificate="agent"');
    expect(sample(body, 'devplein_backup_last_success_timestamp_seconds', { role: 'control-plane' })).toBe(0);

    const [link] = await stack.database.knex('agent_links').where({ status: 'active' }).select<Array<{ name: string }>>('name');
    const pinnedEnd = new Date(Date.now() + 12 * 86_400_000);
    await stack.database.knex('agent_links').where({ name: link?.name }).update({ cert_not_after: pinnedEnd });
    const finishedAt = new Date(Date.now() - 3_600_000);
    await recordBackupRun(stack.database.knex, { role: 'control-plane', startedAt: finishedAt, finishedAt, ok: true, sizeBytes: 1234 });
    body = (await text(`${metricsUrl}/metrics`)).body;
    expect(sample(body, 'devplein_certificate_expiry_timestamp_seconds', { certificate: 'agent', host: link?.name ?? '' })).toBe(Math.floor(pinnedEnd.getTime() / 1000));
    expect(sample(body, 'devplein_backup_last_success_timestamp_seconds', { role: 'control-plane', host: os.hostname() })).toBe(Math.floor(finishedAt.getTime() / 1000));
    expect(sample(body, 'devplein_backup_last_run_success', { role: 'control-plane' })).toBe(1);
  });

  it('never serves metrics on the public app port', async () => {
    const answer = await text(`${stack.app.url}/metrics`);
    expect(answer.body).not.toContain('devplein_http_requests_total');
    expect(answer.body).not.toContain('# HELP');
    const api = await text(`${stack.app.url}/api/metrics`);
    expect(api.status).toBe(404);
    expect(api.body).not.toContain('# HELP');
  });
});

describe('host agent health and metrics (AGENT_METRICS_LISTEN)', () => {
  let workDir: string;
  let agent: TestAgent;
  let client: AgentClient;
  let metricsUrl: string;
  let dataDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-metrics-'));
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const port = await findFreePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    dataDir = path.join(workDir, 'agent-data');
    await mkdir(dataDir);
    agent = await startTestAgent({ certDir: certs.dir, dataDir, env: { AGENT_METRICS_LISTEN: `127.0.0.1:${port}` } });
    const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
    client = createAgentClient({ address: agent.address, ...pems, deadlineMs: 5_000, logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    client?.close();
    await agent?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('answers /healthz 200 with the capability summary', async () => {
    const health = await text(`${metricsUrl}/healthz`);
    expect(health.status).toBe(200);
    const body = JSON.parse(health.body) as { status: string; capabilities: Record<string, { available: boolean }> | null };
    expect(body.status).toBe('ok');
    expect(Object.keys(body.capabilities ?? {}).sort()).toEqual(['chromium', 'docker', 'mysql', 'proxy', 'wireguard']);
  });

  it('counts gRPC calls by method and code', async () => {
    const before = sample((await text(`${metricsUrl}/metrics`)).body, 'devplein_agent_grpc_calls_total', { method: 'InfoService/GetInfo', code: 'OK' });
    await client.info();
    const metrics = await text(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(sample(metrics.body, 'devplein_agent_grpc_calls_total', { method: 'InfoService/GetInfo', code: 'OK' })).toBe(before + 1);
    expect(sample(metrics.body, 'devplein_agent_grpc_call_duration_seconds_count', { method: 'InfoService/GetInfo' })).toBeGreaterThanOrEqual(1);
    expect(metrics.body).toContain('process_resident_memory_bytes');
  });

  it('reports the build, the certificate it serves, and the backup status file at each scrape', async () => {
    let body = (await text(`${metricsUrl}/metrics`)).body;
    expect(sample(body, 'devplein_build_info', { version: await packageVersion('host-agent'), node: process.version })).toBe(1);
    expect(daysUntil(sample(body, 'devplein_certificate_expiry_timestamp_seconds', { certificate: 'agent' }))).toBeCloseTo(825, 0);
    expect(sample(body, 'devplein_backup_last_success_timestamp_seconds', { role: 'agent', host: os.hostname() })).toBe(0);
    expect(body).not.toContain('devplein_backup_last_run_success{');

    // What `devplein backup --role agent` leaves after a failed night that followed a good one.
    const good = new Date(Date.now() - 25 * 3_600_000);
    const failed = new Date(Date.now() - 3_600_000);
    await writeFile(
      path.join(dataDir, 'backup-status.json'),
      JSON.stringify({ finishedAt: failed.toISOString(), ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet', lastSuccessAt: good.toISOString() }),
    );
    body = (await text(`${metricsUrl}/metrics`)).body;
    expect(sample(body, 'devplein_backup_last_success_timestamp_seconds', { role: 'agent' })).toBe(Math.floor(good.getTime() / 1000));
    expect(sample(body, 'devplein_backup_last_run_timestamp_seconds', { role: 'agent' })).toBe(Math.floor(failed.getTime() / 1000));
    expect(body).toContain(`devplein_backup_last_run_success{role="agent",host="${os.hostname()}"} 0`);
  });

  it('does not serve metrics on any other path', async () => {
    expect((await text(`${metricsUrl}/`)).status).toBe(404);
  });
});
