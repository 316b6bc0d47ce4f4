/**
 * GET /api/admin/agent (routes/admin) through the real app with the fake agent: the dev servers'
 * agents with their Info, for admins and teachers only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { call, send } from '../../support/clients/endpoint-calls.ts';
import { adminAgent } from '@devplein/contract/http/admin-agent';


let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
});

afterAll(async () => {
  await stack?.stop();
});

describe('GET /api/admin/agent', () => {
  it('shows every dev server’s agent with its Info, the first one also at the top level', async () => {
    const admin = await stack.as(ADMIN);
    await waitFor(async () => (await call(admin, adminAgent, {})).state === 'reachable', { description: 'the agent reachable', timeoutMs: 20_000 });
    // call() checks the answer against the declared schema (and that it is a 2xx).
    const body = await call(admin, adminAgent, {});
    expect(body.hosts).toHaveLength(1);
    const [host] = body.hosts;
    expect(host).toMatchObject({ state: 'reachable', error: null });
    expect(host?.info?.contractVersion).toMatch(/^1\./);
    expect(body).toMatchObject({ state: host?.state, since: host?.since, info: host?.info, error: null });
  });

  it('is for admins and teachers: 403 for students, developers and the not activated, 401 signed out', async () => {
    expect((await send(await stack.as(DOCENT), adminAgent, {})).status).toBe(200);
    for (const email of [STUDENT, DEVELOPER, NOT_ACTIVATED]) {
      expect((await send(await stack.as(email), adminAgent, {})).status, email).toBe(403);
    }
    expect((await send(await stack.anonymous(), adminAgent, {})).status).toBe(401);
  });

  it('still answers 200 while the agent fails, with the error and the last known Info', async () => {
    const admin = await stack.as(ADMIN);
    stack.agent.mode = 'unavailable';
    try {
      const body = await call(admin, adminAgent, {});
      expect(body.error).toBeTruthy();
      expect(body.info?.contractVersion).toMatch(/^1\./);
    } finally {
      stack.agent.mode = 'ok';
    }
  });
});
