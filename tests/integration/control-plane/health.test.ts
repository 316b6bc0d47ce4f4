/**
 * GET /healthz (routes/health) through the real app with the fake agent: open to anyone, never
 * cached, and it names the database and every dev server's agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { healthJson, type HealthJson } from '@devplein/contract/http/health';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
});

afterAll(async () => {
  await stack?.stop();
});

const health = async (): Promise<{ status: number; cacheControl: string | null; body: HealthJson }> => {
  const response = await fetch(`${stack.app.url}/healthz`);
  return { status: response.status, cacheControl: response.headers.get('cache-control'), body: healthJson.parse(await response.json()) };
};

describe('GET /healthz', () => {
  it('answers 200 ok without a session, with the database up and the agent reachable, and is not cached', async () => {
    await waitFor(async () => (await health()).body.agent?.state === 'reachable', { description: 'the agent reachable', timeoutMs: 20_000 });
    const answer = await health();
    expect(answer.status).toBe(200);
    expect(answer.cacheControl).toBe('no-store');
    expect(answer.body).toMatchObject({ status: 'ok', database: 'up', agent: { state: 'reachable' } });
    expect(answer.body.hosts).toHaveLength(1);
    expect(answer.body.hosts[0]).toMatchObject({ state: 'reachable' });
    expect(answer.body.hosts[0]?.since).toBe(answer.body.agent?.since);
  });

  it('answers the same to a signed-in user', async () => {
    const response = await (await stack.as('student@devplein.test')).raw('/healthz');
    expect(response.status).toBe(200);
    expect(healthJson.parse(await response.json()).database).toBe('up');
  });
});
