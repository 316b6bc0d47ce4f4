/**
 * Rate limits of the real control plane with its default settings (RATE_LIMIT_SIGNIN_PER_MINUTE
 * 120 per client address, RATE_LIMIT_WRITES_PER_MINUTE 600 per signed-in user), behind a
 * trusted proxy (TRUST_PROXY=true: the proxy's X-Forwarded-For entry is the client address).
 * Normal use stays under them; a flood gets 429 with Retry-After and a Dutch message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPER, DOCENT, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { configSchema } from '../../../control-plane/src/config.ts';

const defaults = configSchema.parse({ DEV_LOGIN: '1' });
const SIGNIN_LIMIT = defaults.RATE_LIMIT_SIGNIN_PER_MINUTE;
const WRITE_LIMIT = defaults.RATE_LIMIT_WRITES_PER_MINUTE;

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack({ env: { TRUST_PROXY: 'true' } });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

/** Runs `count` calls, `parallel` at a time; the statuses in order. */
async function inBatches(count: number, parallel: number, send: (index: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, async (_, offset) => {
        const response = await send(start + offset);
        await response.body?.cancel();
        return response.status;
      }),
    );
    statuses.push(...batch);
  }
  return statuses;
}

describe('sign-in rate limit', { timeout: 60_000 }, () => {
  it('lets a whole school behind one address start signing in, then answers 429 per address', async () => {
    const school = '203.0.113.7';
    const start = (address: string, accept = 'text/html') =>
      new HttpSession(stack.app.url).raw('/auth/school', { headers: { 'X-Forwarded-For': address, Accept: accept } });
    // The whole limit: a few classes starting at the same minute.
    const statuses = await inBatches(SIGNIN_LIMIT, 10, () => start(school));
    expect(statuses.filter((status) => status !== 302)).toEqual([]);

    const blocked = await start(school);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(blocked.headers.get('content-type')).toContain('text/plain');
    expect(await blocked.text()).toMatch(/^Te veel inlogpogingen vanaf dit adres\. Wacht \d+ seconden? en probeer het dan opnieuw\.$/);
    // The security headers are on the 429 too.
    expect(blocked.headers.get('x-frame-options')).toBe('DENY');
    // The app's fetches get JSON.
    const json = await start(school, 'application/json');
    expect(json.status).toBe(429);
    expect(((await json.json()) as { message: string }).message).toMatch(/^Te veel inlogpogingen/);

    // Another address has its own budget; a forged first entry does not help (the proxy's last entry counts).
    expect((await start('203.0.113.8')).status).toBe(302);
    expect((await start(`198.51.100.1, ${school}`)).status).toBe(429);
    // Finishing a sign-in that already started is not a new start: the callback is not limited.
    const callback = await new HttpSession(stack.app.url).raw('/auth/school/callback', { headers: { 'X-Forwarded-For': school } });
    expect(callback.status).not.toBe(429);
  });
});

describe('write rate limit', { timeout: 60_000 }, () => {
  it('lets a teacher set 400 students\' levels in bulk and click 150 cells after it', async () => {
    const { knex } = stack.database;
    const group = await knex('groups').first<{ id: number }>('id');
    const students = await knex('users')
      .insert(
        Array.from({ length: 400 }, (_, index) => ({
          name: `Bulk Student ${index}`,
          name_slug: `bulk-student-${index}`,
          email: `bulk${index}@devplein.test`,
          email_verified_at: '2024-09-01T08:00:00Z',
          admin: false,
          developer: false,
          group_id: group.id,
        })),
      )
      .returning<{ id: number }[]>('id');
    const category = await knex('level_categories').orderBy('id').first<{ id: number }>('id');
    const docent = await stack.as(DOCENT);

    // The bulk form sends one request for the whole selection.
    const bulk = await docent.json<{ updated: number }>('POST', '/api/level/update/multiple', {
      level: 1,
      status: 'open',
      category_id: category.id,
      ids: students.map((row) => row.id),
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.updated).toBe(400);

    // Then a busy lesson of single changes in the level table, each its own request.
    const levels = await knex('levels')
      .whereIn('user_id', students.slice(0, 150).map((row) => row.id))
      .select<{ id: number }[]>('id');
    expect(levels.length).toBe(150);
    const statuses = await inBatches(levels.length, 10, (index) =>
      docent.api('POST', '/api/level/update-status', { level: levels[index]?.id, status: 'success' }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('answers 429 JSON with Retry-After after the limit, per user, and only for writes', async () => {
    const developer = await stack.as(DEVELOPER);
    const search = () => developer.api('POST', '/api/users/search', { part: 'an' });
    const statuses = await inBatches(WRITE_LIMIT, 20, search);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    const blocked = await search();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await blocked.json()) as { message: string; retryAfter: number };
    expect(body.message).toMatch(/^Je voert te veel wijzigingen kort na elkaar uit\. Wacht \d+ seconden? en probeer het dan opnieuw\.$/);
    expect(body.retryAfter).toBeGreaterThan(0);

    // Reading still works for that user, and another user's writes are not affected.
    expect((await developer.api('GET', '/api/user/dockers')).status).toBe(200);
    expect((await (await stack.as(STUDENT)).api('POST', '/api/users/search', { part: 'an' })).status).toBe(200);
  });
});
