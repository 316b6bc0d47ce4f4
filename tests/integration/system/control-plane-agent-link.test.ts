/**
 * The control plane and a real host agent over mTLS: /healthz and GET /api/admin/agent follow the
 * agent going down and coming back, without a restart of the control plane.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestDatabase } from '../../support/services/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession, signedInSessions } from '../../support/clients/http-session.ts';
import { makeTestCerts, startTestAgent, type TestAgent, agentLinkEnv } from '../../support/services/agent.ts';
import { waitFor } from '../../support/clients/ports.ts';


let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let agent: TestAgent;
let app: RunningControlPlane;
let certDir: string;

const as = signedInSessions(() => app.url);

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-cp-agent-'));
  const certs = await makeTestCerts(certDir);
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  agent = await startTestAgent({ certDir });
  app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      ...agentLinkEnv(agent.address, certs),
    },
  });
});

afterAll(async () => {
  await app?.stop();
  await agent?.stop();
  await database?.destroy();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

async function health(): Promise<{ status: string; database: string; agent: { state: string } }> {
  return (await fetch(`${app.url}/healthz`)).json() as Promise<{ status: string; database: string; agent: { state: string } }>;
}

describe('the control plane and the host agent over mTLS', () => {
  it('reports the agent reachable in /healthz', async () => {
    await waitFor(async () => (await health()).agent.state === 'reachable', { description: 'agent reachable', timeoutMs: 20_000 });
    expect(await health()).toMatchObject({ status: 'ok', database: 'up' });
  });

  it('shows the agent’s Info at GET /api/admin/agent to admins only', async () => {
    const admin = await as('admin@devplein.test');
    const answer = await admin.json<{ state: string; info: { contractVersion: string; capabilities: Record<string, unknown> } }>(
      'GET',
      '/api/admin/agent',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.state).toBe('reachable');
    expect(answer.body.info.contractVersion).toMatch(/^1\./);
    expect(Object.keys(answer.body.info.capabilities)).toEqual(
      expect.arrayContaining(['docker', 'proxy', 'mysql', 'chromium', 'wireguard']),
    );
    expect((await (await as('docent@devplein.test')).json('GET', '/api/admin/agent')).status).toBe(200);
    expect((await (await as('student@devplein.test')).json('GET', '/api/admin/agent')).status).toBe(403);
    expect((await (await as('ontwikkelaar@devplein.test')).json('GET', '/api/admin/agent')).status).toBe(403);
    expect((await (await as('nieuw@devplein.test')).json('GET', '/api/admin/agent')).status).toBe(403);
    expect((await new HttpSession(app.url).json('GET', '/api/admin/agent')).status).toBe(401);
  });

  it('reports the agent unreachable when it stops, and reachable again when it returns, without a restart', async () => {
    await agent.kill();
    await waitFor(async () => (await health()).agent.state === 'unreachable', {
      description: 'agent reported unreachable',
      timeoutMs: 30_000,
    });
    expect(await health()).toMatchObject({ status: 'degraded', database: 'up' });
    const admin = await as('admin@devplein.test');
    const whileDown = await admin.json<{ state: string; error: string | null }>('GET', '/api/admin/agent');
    expect(whileDown.status).toBe(200);
    expect(whileDown.body.state).toBe('unreachable');
    expect(whileDown.body.error).toBeTruthy();
    await agent.restart();
    await waitFor(async () => (await health()).agent.state === 'reachable', {
      description: 'agent reachable again',
      timeoutMs: 30_000,
    });
  });
});
