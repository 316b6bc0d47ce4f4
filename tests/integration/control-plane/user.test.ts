/**
 * GET /api/user and /api/user/{id} (routes/user): profiles with level progress, teams and group,
 * against the real control plane and PostgreSQL with the demo seed. Expectations are read from
 * the database, not from the seed's formula.
 */
import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { call, send } from '../../support/clients/endpoint-calls.ts';
import { currentUser, userProfile } from '@devplein/contract/http/user';
import { listSshKeys } from '@devplein/contract/http/ssh-keys';

type Status = 'locked' | 'open' | 'success';
interface LevelRow {
  id: number;
  user_id: number;
  level_category_id: number;
  level_content_id: number | null;
  number: number;
  status: Status;
}

const stack = seededControlPlane();

/** One signed-in session per account, reused across tests (sign-in is the slow part). */
const as = signedInSessions(() => stack.app.url);

async function userIdOf(email: string): Promise<number> {
  const row = await stack.database.knex('users').where({ email }).first<{ id: number }>();
  return row.id;
}

async function emailOf(name: string): Promise<string> {
  const row = await stack.database.knex('users').where({ name }).first<{ email: string }>();
  return row.email;
}

async function levelsOf(email: string): Promise<LevelRow[]> {
  return stack.database.knex('levels').where({ user_id: await userIdOf(email) }).orderBy(['level_category_id', 'number']);
}

async function projectsCategory(): Promise<{ id: number }> {
  return stack.database.knex('level_categories').where({ number: 16 }).first<{ id: number }>();
}

describe('profiles with level progress', () => {
  it('adds finished levels per category to one’s own profile, with the §9 count', async () => {
    // call() checks the answer against the declared schema (and that it is a 2xx).
    const body = await call(await as('student@devplein.test'), currentUser, {});
    const projects = await projectsCategory();
    expect(body.levelCategories.length).toBeGreaterThanOrEqual(4);
    const own = await levelsOf('student@devplein.test');
    for (const category of body.levelCategories) {
      const number = category.id === projects.id ? 10 : (await stack.database.knex('level_categories').where({ id: category.id }).first()).number;
      expect(category.number).toBe(number);
      const finished = own.filter((row) => row.level_category_id === category.id && row.status === 'success' && row.number <= number).length;
      expect(category.finished).toBe(finished);
    }
    expect(body.levelCategories.some((category) => category.finished > 0)).toBe(true);
  });

  it('shows 16 as the count of the 16-level category for SD20', async () => {
    const daan = await as(await emailOf('Daan de Vries'));
    const body = await call(daan, currentUser, {});
    const projects = await projectsCategory();
    expect(body.levelCategories.find((category) => category.id === projects.id)?.number).toBe(16);
  });

  it('gives users without levels an empty list (teachers, students outside the programme)', async () => {
    for (const email of ['docent@devplein.test', 'admin@devplein.test', 'zonderklas@devplein.test']) {
      const body = await call(await as(email), currentUser, {});
      expect(body.levelCategories, email).toEqual([]);
    }
  });

  it('shows someone else’s profile with their progress, teams and group but without the activation date', async () => {
    const samId = await userIdOf('student@devplein.test');
    const body = await call(await as('ontwikkelaar@devplein.test'), userProfile, { params: { id: samId } });
    expect(body).toMatchObject({ id: samId, name: 'Sam Student', group: { cohort: 'SD23' } });
    expect(body.teams.length).toBeGreaterThan(0);
    expect(body.levelCategories.length).toBeGreaterThanOrEqual(4);
    expect(body).not.toHaveProperty('email_verified_at');
  });

  it('hides disabled accounts from students (404) but not from admins', async () => {
    const disabled = await stack.database.knex('users').whereNotNull('disabled_at').first<{ id: number }>();
    expect((await send(await as('student@devplein.test'), userProfile, { params: { id: disabled.id } })).status).toBe(404);
    expect((await send(await as('docent@devplein.test'), userProfile, { params: { id: disabled.id } })).status).toBe(200);
  });

  it('leaves /api/user/ssh_keys to its own router instead of answering 422', async () => {
    const answer = await send(await as('ontwikkelaar@devplein.test'), listSshKeys, {});
    expect(answer.status).toBe(200);
  });
});
