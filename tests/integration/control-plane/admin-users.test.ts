import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import type { RunningControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import type { AdminUserJson as AdminUser } from '@devplein/contract/users';

/*
 * The users admin through the real control plane (and the fake agent): every route for every
 * role, verify / disable / delete and their effects (sessions ended, sign-in refused, cascades,
 * host resources removed through the agent), self-protection, bad input (422), unknown ids (404)
 * and the audit rows. What each action does on the dev servers: control-plane/user-access.test.ts.
 */

let stack: HostingStack;
let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let app: RunningControlPlane;

type Role = 'anonymous' | 'nieuw' | 'student' | 'developer' | 'docent' | 'admin';
const sessions = {} as Record<Role, HttpSession>;
const accounts: Record<Exclude<Role, 'anonymous'>, string> = {
  nieuw: 'nieuw@devplein.test',
  student: 'student@devplein.test',
  developer: 'ontwikkelaar@devplein.test',
  docent: 'docent@devplein.test',
  admin: 'admin@devplein.test',
};
const refusedRoles: Array<[Role, number]> = [
  ['anonymous', 401],
  ['nieuw', 403],
  ['student', 403],
  ['developer', 403],
];

beforeAll(async () => {
  stack = await startHostingStack();
  ({ database, app } = stack);
  sessions.anonymous = new HttpSession(app.url);
  await sessions.anonymous.primeCsrf();
  for (const [role, email] of Object.entries(accounts) as Array<[Exclude<Role, 'anonymous'>, string]>) {
    const session = new HttpSession(app.url);
    expect((await session.signIn(email)).status, `sign-in of ${email}`).toBe(200);
    sessions[role] = session;
  }
});

afterAll(async () => {
  await stack?.stop();
});

const userIdOf = async (key: { email?: string; name?: string }): Promise<number> =>
  (await database.knex('users').where(key).first<{ id: number }>('id')).id;

let extraUsers = 0;
/** A fresh activated user with nothing on the host: something a delete may remove. */
async function freshUser(name: string): Promise<number> {
  extraUsers += 1;
  const [row] = await database
    .knex('users')
    .insert({ name, name_slug: `extra-${extraUsers}`, email: `extra${extraUsers}@student.devplein.test`, email_verified_at: new Date() })
    .returning('id');
  return (row as { id: number }).id;
}

async function auditRows(action: string, subjectId: number) {
  return database
    .knex('audit_log')
    .where({ action, subject_type: 'user', subject_id: String(subjectId) })
    .orderBy('id')
    .select<Array<{ actor_id: number | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>>(
      'actor_id',
      'before',
      'after',
    );
}

describe('GET /api/admin/users', () => {
  it.each(refusedRoles)('refuses %s with %i', async (role, status) => {
    expect((await sessions[role].json('GET', '/api/admin/users')).status).toBe(status);
  });

  it.each(['docent', 'admin'] as const)('lists every user for %s in one answer, ordered by name (case-insensitive)', async (role) => {
    const { status, body } = await sessions[role].json<AdminUser[]>('GET', '/api/admin/users');
    expect(status).toBe(200);
    const [{ count }] = (await database.knex('users').count({ count: '*' })) as [{ count: string | number }];
    expect(body).toHaveLength(Number(count));
    const names = body.map((user) => user.name.toLowerCase());
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    const student = body.find((user) => user.email === 'student@devplein.test')!;
    expect(Object.keys(student).sort()).toEqual(['access_not_done', 'developer', 'disabled_at', 'email', 'email_verified_at', 'group', 'id', 'name']);
    expect(student).toMatchObject({ name: 'Sam Student', group: { cohort: 'SD23' }, disabled_at: null, developer: false, access_not_done: null });
    expect(body.find((user) => user.email === 'ontwikkelaar@devplein.test')!.developer).toBe(true);
    expect(student.email_verified_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(body.find((user) => user.email === 'nieuw@devplein.test')!.email_verified_at).toBeNull();
    expect(body.find((user) => user.email === 'zonderklas@devplein.test')!.group).toBeNull();
    expect(body.find((user) => user.name === 'Rick Blom')!.disabled_at).not.toBeNull();
  });
});

describe('PUT /api/admin/users/{id}?action=verify|disable', () => {
  it.each(refusedRoles)('refuses %s with %i and changes nothing', async (role, status) => {
    const saar = await userIdOf({ name: 'Saar Prins' });
    expect((await sessions[role].json('PUT', `/api/admin/users/${saar}?action=verify`)).status).toBe(status);
    expect((await database.knex('users').where({ id: saar }).first('email_verified_at')).email_verified_at).toBeNull();
  });

  it('verify activates a new account: the user gets past the not-activated wall, with an audit entry', async () => {
    const nina = await userIdOf({ email: 'nieuw@devplein.test' });
    const ninaSession = new HttpSession(app.url);
    await ninaSession.signIn('nieuw@devplein.test');
    expect((await ninaSession.json('GET', '/api/level/categories/index')).status).toBe(403);

    const { status, body } = await sessions.docent.json<AdminUser>('PUT', `/api/admin/users/${nina}?action=verify`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: nina, name: 'Nina Nieuw', disabled_at: null, group: { cohort: 'SD23' } });
    expect(body.email_verified_at).not.toBeNull();
    expect((await ninaSession.json('GET', '/api/level/categories/index')).status).toBe(200);

    const [audit] = await auditRows('user.verify', nina);
    expect(audit).toMatchObject({
      actor_id: await userIdOf({ email: 'docent@devplein.test' }),
      before: { email_verified_at: null, name: 'Nina Nieuw' },
    });
    expect(audit!.after!.email_verified_at).toBe(body.email_verified_at);
    // Back to not activated: the 'nieuw' role session of the other tests stays what it says.
    await database.knex('users').where({ id: nina }).update({ email_verified_at: null });
    expect((await ninaSession.json('GET', '/api/level/categories/index')).status).toBe(403);
  });

  it('verify works for admin too (the answer is the updated user)', async () => {
    const saar = await userIdOf({ name: 'Saar Prins' });
    const { status, body } = await sessions.admin.json<AdminUser>('PUT', `/api/admin/users/${saar}?action=verify`);
    expect(status).toBe(200);
    expect(body.email_verified_at).not.toBeNull();
  });

  it('disable ends every session of the user at once and refuses their next sign-in; verify lets them back in', async () => {
    const zoe = await userIdOf({ email: 'zonderklas@devplein.test' });
    const phone = new HttpSession(app.url);
    const laptop = new HttpSession(app.url);
    await phone.signIn('zonderklas@devplein.test');
    await laptop.signIn('zonderklas@devplein.test');
    expect((await phone.json('GET', '/api/user')).status).toBe(200);
    expect(Number((await database.knex('sessions').where({ user_id: zoe }).count({ n: '*' }))[0]!.n)).toBeGreaterThanOrEqual(2);

    const { status, body } = await sessions.admin.json<AdminUser>('PUT', `/api/admin/users/${zoe}?action=disable`);
    expect(status).toBe(200);
    expect(body.disabled_at).not.toBeNull();
    expect(body.email_verified_at).not.toBeNull();
    expect(Number((await database.knex('sessions').where({ user_id: zoe }).count({ n: '*' }))[0]!.n)).toBe(0);
    expect((await phone.json('GET', '/api/user')).status).toBe(401);
    expect((await laptop.json('GET', '/api/level/categories/index')).status).toBe(401);

    const again = new HttpSession(app.url);
    const landing = await again.signIn('zonderklas@devplein.test');
    expect(new URL(landing.url).pathname).toBe('/not_verified');
    expect((await again.json('GET', '/api/user')).status).toBe(401);

    const [audit] = await auditRows('user.disable', zoe);
    expect(audit!.before).toMatchObject({ disabled_at: null });
    expect(audit!.after).toMatchObject({ ended_sessions: expect.any(Number) });
    expect(audit!.after!.disabled_at).toBe(body.disabled_at);

    const verified = await sessions.docent.json<AdminUser>('PUT', `/api/admin/users/${zoe}?action=verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.disabled_at).toBeNull();
    const back = new HttpSession(app.url);
    await back.signIn('zonderklas@devplein.test');
    expect((await back.json('GET', '/api/user')).status).toBe(200);
  });

  it('refuses to let an admin disable themselves (403, clear message) and leaves them signed in', async () => {
    const anna = await userIdOf({ email: 'admin@devplein.test' });
    const { status, body } = await sessions.admin.json<{ message: string }>('PUT', `/api/admin/users/${anna}?action=disable`);
    expect(status).toBe(403);
    expect(body.message).toBe('Je kunt je eigen account niet uitschakelen.');
    expect((await sessions.admin.json('GET', '/api/user')).status).toBe(200);
    expect(await auditRows('user.disable', anna)).toHaveLength(0);
  });

  it.each([
    ['?action=delete', 'action'],
    ['?action=', 'action'],
    ['', 'action'],
  ])('answers 422 with field errors for a bad action (%s)', async (query, field) => {
    const saar = await userIdOf({ name: 'Saar Prins' });
    const { status, body } = await sessions.admin.json<{ errors: Record<string, string[]> }>('PUT', `/api/admin/users/${saar}${query}`);
    expect(status).toBe(422);
    expect(body.errors[field]).toEqual(['Kies verify of disable.']);
  });

  it('answers 422 for an id that is not a number, 404 for an unknown user', async () => {
    const bad = await sessions.admin.json<{ errors: Record<string, string[]> }>('PUT', '/api/admin/users/abc?action=verify');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.id).toBeDefined();
    expect((await sessions.admin.json('PUT', '/api/admin/users/99999999999?action=verify')).status).toBe(422);
    for (const action of ['verify', 'disable']) {
      const missing = await sessions.admin.json<{ message: string }>('PUT', `/api/admin/users/987654?action=${action}`);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Deze gebruiker bestaat niet.');
    }
  });
});

describe('DELETE /api/admin/users/{id}', () => {
  it.each(refusedRoles)('refuses %s with %i and deletes nothing', async (role, status) => {
    const target = await freshUser(`Niet weg ${role}`);
    expect((await sessions[role].json('DELETE', `/api/admin/users/${target}`)).status).toBe(status);
    expect(await database.knex('users').where({ id: target }).first('id')).toBeDefined();
  });

  it.each(['docent', 'admin'] as const)('lets %s delete a user without host resources (204)', async (role) => {
    const target = await freshUser(`Weg ${role}`);
    expect((await sessions[role].json('DELETE', `/api/admin/users/${target}`)).status).toBe(204);
    expect(await database.knex('users').where({ id: target }).first('id')).toBeUndefined();
  });

  it('deletes SSH keys, levels, licences and memberships with the user; shared projects stay without them; audit keeps the before', async () => {
    const knex = database.knex;
    const rick = await userIdOf({ name: 'Rick Blom' });
    const quiz = await knex('projects').where({ name: 'quiz-master' }).first<{ id: number }>('id');
    await knex('project_user').insert({ project_id: quiz.id, user_id: rick, position: 2 });
    await knex('ssh_keys').insert({ user_id: rick, name: 'laptop', public_key: 'ssh-ed25519 AAAA rick', fingerprint: 'SHA256:rick-test' });
    await knex('licenses').insert({ user_id: rick, description: 'IDE', license: 'RICK-1' });
    await knex('team_user').insert({ team_id: 2, user_id: rick });

    expect((await sessions.admin.json('DELETE', `/api/admin/users/${rick}`)).status).toBe(204);
    expect(await knex('users').where({ id: rick }).first('id')).toBeUndefined();
    expect(await knex('ssh_keys').where({ user_id: rick })).toHaveLength(0);
    expect(await knex('licenses').where({ user_id: rick })).toHaveLength(0);
    expect(await knex('team_user').where({ user_id: rick })).toHaveLength(0);
    expect(await knex('project_user').where({ project_id: quiz.id }).pluck('user_id')).toHaveLength(2);
    expect(await knex('projects').where({ id: quiz.id }).first('id')).toBeDefined();

    const [audit] = await auditRows('user.delete', rick);
    expect(audit).toMatchObject({
      actor_id: await userIdOf({ email: 'admin@devplein.test' }),
      after: { not_done: [] },
      before: { name: 'Rick Blom', ssh_keys: ['SHA256:rick-test'], shared_projects: ['quiz-master'], team_ids: [2] },
    });
  });

  it('deletes a user who is the only member of a project together with that project (no more 409)', async () => {
    const sam = await userIdOf({ email: 'student@devplein.test' });
    const portfolio = await database.knex('projects').where({ name: 'sam-portfolio' }).first<{ id: number }>('id');
    expect((await sessions.admin.json('DELETE', `/api/admin/users/${sam}`)).status).toBe(204);
    expect(await database.knex('users').where({ id: sam }).first('id')).toBeUndefined();
    expect(await database.knex('projects').where({ id: portfolio.id }).first('id')).toBeUndefined();
    // kantine-app is shared with two others: it stays, without Sam.
    const kantine = await database.knex('projects').where({ name: 'kantine-app' }).first<{ id: number }>('id');
    expect(await database.knex('project_user').where({ project_id: kantine.id })).toHaveLength(2);
    const [projectAudit] = await database.knex('audit_log').where({ action: 'project.delete', subject_id: String(portfolio.id) }).select('before');
    expect(projectAudit?.before).toMatchObject({ name: 'sam-portfolio', reason: 'user.delete' });
  });

  it('deletes a user with a database and a VPN configuration: both go through the agent first', async () => {
    const knex = database.knex;
    const emma = await userIdOf({ name: 'Emma Smits' });
    await knex('databases').insert({ user_id: emma, name: 'emma_shp', db_user: 'emma', password_encrypted: 'x' });
    await knex('vpn_configs').insert({ user_id: emma, address: '10.8.0.77/32', public_key: 'emma-public-key' });
    const calls = stack.agent.calls.length;

    expect((await sessions.docent.json('DELETE', `/api/admin/users/${emma}`)).status).toBe(204);
    const sent = stack.agent.calls.slice(calls).map((call) => call.method);
    expect(sent).toEqual(expect.arrayContaining(['dropDatabase', 'removePeer']));
    expect(await knex('databases').where({ user_id: emma })).toHaveLength(0);
    expect(await knex('vpn_configs').where({ user_id: emma })).toHaveLength(0);
    // Her shared project stays, with the two other members.
    const webshop = await knex('projects').where({ name: 'webshop-groen' }).first<{ id: number }>('id');
    expect(await knex('project_user').where({ project_id: webshop.id })).toHaveLength(2);
  });

  it('refuses to let an admin delete themselves (403)', async () => {
    const dirk = await userIdOf({ email: 'docent@devplein.test' });
    const { status, body } = await sessions.docent.json<{ message: string }>('DELETE', `/api/admin/users/${dirk}`);
    expect(status).toBe(403);
    expect(body.message).toBe('Je kunt je eigen account niet verwijderen.');
  });

  it('answers 404 for an unknown user and 422 for an id that is not a number', async () => {
    expect((await sessions.admin.json('DELETE', '/api/admin/users/987654')).status).toBe(404);
    expect((await sessions.admin.json('DELETE', '/api/admin/users/0')).status).toBe(422);
    expect((await sessions.admin.json('DELETE', '/api/admin/users/-3')).status).toBe(422);
  });
});
