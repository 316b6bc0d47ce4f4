import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { MAX_PENDING_LICENSES_PER_USER } from '../../../control-plane/src/policies/license-policy.ts';
import type { AdminLicenseJson as AdminLicense, OwnLicenseJson as OwnLicense } from '@devplein/contract/access';
import type { ErrorJson } from '@devplein/contract/http/errors';
import { listAllLicenses, listOwnLicenses, requestLicense, toggleLicenseApproval } from '@devplein/contract/http/licenses';
import { call } from '../../support/clients/endpoint-calls.ts';

/*
 * Licences through the real control plane: admins list every request and tick approval on and
 * off (audited); every activated user requests, lists and withdraws their own. Every route for
 * every role, bad input (422, never 500), someone else's licence (404).
 */

type Role = 'anonymous' | 'nieuw' | 'student' | 'zonderklas' | 'developer' | 'docent' | 'admin';
const accounts: Record<Exclude<Role, 'anonymous'>, string> = {
  nieuw: 'nieuw@devplein.test',
  student: 'student@devplein.test',
  zonderklas: 'zonderklas@devplein.test',
  developer: 'ontwikkelaar@devplein.test',
  docent: 'docent@devplein.test',
  admin: 'admin@devplein.test',
};

const stack = seededControlPlane({ accounts });
const { sessions } = stack;

const userId = async (email: string): Promise<number> =>
  (await stack.database.knex('users').where({ email }).first<{ id: number }>('id')).id;

/** A licence of someone, inserted directly (so tests do not depend on one another). */
async function licenseOf(email: string, approvedBy: string | null = null): Promise<number> {
  const [row] = await stack.database
    .knex('licenses')
    .insert({
      user_id: await userId(email),
      description: 'Voor het vak ontwerpen',
      license: 'Adobe Creative Cloud',
      approved_at: approvedBy ? new Date() : null,
      approved_by: approvedBy ? await userId(approvedBy) : null,
    })
    .returning<{ id: number }[]>('id');
  return row!.id;
}

const ADMIN_LIST = listAllLicenses.path;
const OWN_LIST = listOwnLicenses.path;

describe('GET/PUT /api/admin/licenses: who may', () => {
  it('answers 401 to anonymous visitors', async () => {
    expect((await sessions.anonymous.json('GET', ADMIN_LIST)).status).toBe(401);
    expect((await sessions.anonymous.json('PUT', `${ADMIN_LIST}/1`)).status).toBe(401);
  });

  it('answers 403 not_verified to a not-activated account', async () => {
    for (const [method, path] of [
      ['GET', ADMIN_LIST],
      ['PUT', `${ADMIN_LIST}/1`],
    ] as const) {
      const answer = await sessions.nieuw.json<ErrorJson>(method, path);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.reason).toBe('not_verified');
    }
  });

  it.each(['student', 'zonderklas', 'developer'] as const)('answers 403 to %s, who is not an admin, and changes nothing', async (role) => {
    const before = await stack.database.knex('licenses').where('id', 2).first('approved_at');
    expect((await sessions[role].json('GET', ADMIN_LIST)).status).toBe(403);
    expect((await sessions[role].json('PUT', `${ADMIN_LIST}/2`)).status).toBe(403);
    expect(await stack.database.knex('licenses').where('id', 2).first('approved_at')).toEqual(before);
  });

  it.each(['docent', 'admin'] as const)('gives %s every licence, newest first, with the holder', async (role) => {
    const seeded = (await call(sessions[role], listAllLicenses, {})).filter((license) => license.id <= 3);
    expect(seeded.map((license) => license.id)).toEqual([3, 2, 1]);
    const emma = seeded.find((license) => license.id === 2);
    expect(emma).toMatchObject({
      description: 'Adobe Creative Cloud voor het portfolio',
      license: 'ACC-STU-31F8-77AD',
      user: { name: 'Emma Smits' },
      approved: false,
      approved_at: null,
    });
    expect(seeded.find((license) => license.id === 1)).toMatchObject({ approved: true, user: { name: expect.any(String) } });
    expect(Object.keys(emma ?? {}).sort()).toEqual(['approved', 'approved_at', 'created_at', 'description', 'id', 'license', 'user']);
  });
});

describe('PUT /api/admin/licenses/{id}: the approve tick', () => {
  it('approves on the first PUT and revokes on the second, each audited in the same transaction', async () => {
    const id = await licenseOf('student@devplein.test');
    const adminId = await userId('admin@devplein.test');

    const approved = await call(sessions.admin, toggleLicenseApproval, { params: { id } });
    expect(approved).toMatchObject({ id, approved: true, user: { id: await userId('student@devplein.test'), name: 'Sam Student' } });
    expect(Date.parse(approved.approved_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const stored = await stack.database.knex('licenses').where('id', id).first('approved_at', 'approved_by');
    expect(stored.approved_by).toBe(adminId);
    expect(stored.approved_at).not.toBeNull();

    const revoked = await call(sessions.admin, toggleLicenseApproval, { params: { id } });
    expect(revoked).toMatchObject({ id, approved: false, approved_at: null });
    expect(await stack.database.knex('licenses').where('id', id).first('approved_at', 'approved_by')).toEqual({ approved_at: null, approved_by: null });

    const audit = await stack.database
      .knex('audit_log')
      .where({ subject_type: 'license', subject_id: String(id) })
      .orderBy('id')
      .select('actor_id', 'action', 'before', 'after');
    expect(audit.map((entry) => entry.action)).toEqual(['license.approve', 'license.revoke']);
    expect(audit.every((entry) => entry.actor_id === adminId)).toBe(true);
    expect(audit[0]!.before).toMatchObject({ approved_at: null });
    expect(audit[0]!.after).toMatchObject({ approved_by: adminId });
    expect(audit[1]!.after).toEqual({ approved_at: null, approved_by: null });
  });

  it('lets a teacher (admin flag, no developer flag) approve too, and shows it in the list', async () => {
    const id = await licenseOf('zonderklas@devplein.test');
    expect((await sessions.docent.json<AdminLicense>('PUT', `${ADMIN_LIST}/${id}`)).body.approved).toBe(true);
    const list = await sessions.admin.json<AdminLicense[]>('GET', ADMIN_LIST);
    expect(list.body.find((license) => license.id === id)).toMatchObject({ approved: true });
    expect((await stack.database.knex('licenses').where('id', id).first('approved_by')).approved_by).toBe(await userId('docent@devplein.test'));
  });

  it('answers 404 for a licence that does not exist and 422 for an id that is no number', async () => {
    expect((await sessions.admin.json('PUT', `${ADMIN_LIST}/999999`)).status).toBe(404);
    for (const bad of ['abc', '0', '-3', '1.5', '99999999999']) {
      const answer = await sessions.admin.json<ErrorJson>('PUT', `${ADMIN_LIST}/${bad}`);
      expect(answer.status, bad).toBe(422);
      expect(answer.body.errors?.id).toBeDefined();
    }
  });

  it('toggles exactly twice when two ticks arrive at once', async () => {
    const id = await licenseOf('student@devplein.test');
    const answers = await Promise.all([sessions.admin.json('PUT', `${ADMIN_LIST}/${id}`), sessions.docent.json('PUT', `${ADMIN_LIST}/${id}`)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect((await stack.database.knex('licenses').where('id', id).first('approved_at')).approved_at).toBeNull();
    const actions = await stack.database.knex('audit_log').where({ subject_type: 'license', subject_id: String(id) }).orderBy('id').pluck('action');
    expect(actions).toEqual(['license.approve', 'license.revoke']);
  });
});

describe('/api/user/licenses: one’s own requests', () => {
  it('answers 401 to anonymous visitors on every call', async () => {
    expect((await sessions.anonymous.json('GET', OWN_LIST)).status).toBe(401);
    expect((await sessions.anonymous.json('POST', OWN_LIST, { description: 'Voor school', license: 'JetBrains' })).status).toBe(401);
    expect((await sessions.anonymous.json('DELETE', `${OWN_LIST}/1`)).status).toBe(401);
  });

  it('answers 403 not_verified to a not-activated account and stores nothing', async () => {
    for (const [method, path, body] of [
      ['GET', OWN_LIST, undefined],
      ['POST', OWN_LIST, { description: 'Voor school', license: 'JetBrains' }],
      ['DELETE', `${OWN_LIST}/1`, undefined],
    ] as const) {
      const answer = await sessions.nieuw.json<ErrorJson>(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.reason).toBe('not_verified');
    }
    expect(Number((await stack.database.knex('licenses').where('user_id', await userId('nieuw@devplein.test')).count('* as n').first())?.n)).toBe(0);
  });

  it('is not mistaken for the profile route /api/user/{id}', async () => {
    const answer = await sessions.zonderklas.json<unknown>('GET', OWN_LIST);
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body)).toBe(true);
  });

  it.each(['student', 'developer', 'docent', 'admin'] as const)('lets %s request a licence and see it pending', async (role) => {
    const email = accounts[role];
    const before = await sessions[role].json<OwnLicense[]>('GET', OWN_LIST);
    expect(before.status).toBe(200);
    const answer = await call(sessions[role], requestLicense, { body: { description: `  Voor mijn project (${role})  `, license: ' JetBrains ' } });
    expect(answer).toHaveLength(before.body.length + 1);
    expect(answer[0]).toMatchObject({ description: `Voor mijn project (${role})`, license: 'JetBrains', approved: false, approved_at: null });
    expect(Object.keys(answer[0] ?? {}).sort()).toEqual(['approved', 'approved_at', 'created_at', 'description', 'id', 'license']);
    const stored = await stack.database.knex('licenses').where('id', answer[0]!.id).first('user_id');
    expect(stored.user_id).toBe(await userId(email));
    // The admin sees it with the requester's name.
    const list = await sessions.docent.json<AdminLicense[]>('GET', ADMIN_LIST);
    expect(list.body[0]).toMatchObject({ id: answer[0]!.id, user: { id: await userId(email) } });
  });

  it('lists only one’s own licences, with the approval the admin ticked', async () => {
    const mine = await licenseOf('ontwikkelaar@devplein.test');
    await licenseOf('student@devplein.test');
    const list = await sessions.developer.json<OwnLicense[]>('GET', OWN_LIST);
    const ownIds = await stack.database.knex('licenses').where('user_id', await userId('ontwikkelaar@devplein.test')).pluck('id');
    expect(list.body.map((license) => license.id).sort()).toEqual(ownIds.sort());
    expect(list.body.find((license) => license.id === 1)).toMatchObject({ approved: true });
    await sessions.admin.json('PUT', `${ADMIN_LIST}/${mine}`);
    const after = await sessions.developer.json<OwnLicense[]>('GET', OWN_LIST);
    expect(after.body.find((license) => license.id === mine)).toMatchObject({ approved: true });
  });

  it('refuses bad input with 422 and field errors, never 500', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['description', 'license']],
      [{ description: 'abcd', license: 'JetBrains' }, ['description']],
      [{ description: '     vijf     ', license: 'JetBrains' }, ['description']],
      [{ description: 'x'.repeat(501), license: 'JetBrains' }, ['description']],
      [{ description: 'Voor school', license: 'J' }, ['license']],
      [{ description: 'Voor school', license: 'J'.repeat(101) }, ['license']],
      [{ description: 12345, license: ['JetBrains'] }, ['description', 'license']],
      [{ description: null, license: { name: 'x' } }, ['description', 'license']],
    ];
    for (const [body, fields] of cases) {
      const answer = await sessions.student.json<ErrorJson>('POST', OWN_LIST, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors ?? {}).sort(), JSON.stringify(body)).toEqual(fields);
    }
    // JSON that is no object: the body parser's 400 (strict JSON) or our 422; never a 500.
    for (const body of [[], 'tekst', 42]) {
      expect([400, 422], JSON.stringify(body)).toContain((await sessions.student.json('POST', OWN_LIST, body)).status);
    }
  });

  it(`refuses more than ${MAX_PENDING_LICENSES_PER_USER} pending requests`, async () => {
    const email = 'zonderklas@devplein.test';
    const pending = Number((await stack.database.knex('licenses').where('user_id', await userId(email)).whereNull('approved_at').count('* as n').first())?.n);
    for (let index = pending; index < MAX_PENDING_LICENSES_PER_USER; index++) {
      expect((await sessions.zonderklas.json('POST', OWN_LIST, { description: `Aanvraag ${index}`, license: 'Figma' })).status).toBe(200);
    }
    const refused = await sessions.zonderklas.json<ErrorJson>('POST', OWN_LIST, { description: 'Nog een', license: 'Figma' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors?.license?.[0]).toContain('in behandeling');
    await stack.database.knex('licenses').where('user_id', await userId(email)).whereNull('approved_at').delete();
  });

  it('withdraws a pending request of one’s own and answers the updated list', async () => {
    const id = await licenseOf('student@devplein.test');
    const answer = await sessions.student.json<OwnLicense[]>('DELETE', `${OWN_LIST}/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.some((license) => license.id === id)).toBe(false);
    expect(await stack.database.knex('licenses').where('id', id).first()).toBeUndefined();
  });

  it('answers 404 for someone else’s licence (and leaves it), and for one that does not exist', async () => {
    const theirs = await licenseOf('ontwikkelaar@devplein.test');
    for (const role of ['student', 'admin'] as const) {
      const answer = await sessions[role].json<ErrorJson>('DELETE', `${OWN_LIST}/${theirs}`);
      expect(answer.status, role).toBe(404);
    }
    expect(await stack.database.knex('licenses').where('id', theirs).first('id')).toEqual({ id: theirs });
    expect((await sessions.student.json('DELETE', `${OWN_LIST}/999999`)).status).toBe(404);
    expect((await sessions.student.json<ErrorJson>('DELETE', `${OWN_LIST}/abc`)).status).toBe(422);
  });

  it('refuses to withdraw an approved licence with 422 (al goedgekeurd)', async () => {
    const id = await licenseOf('student@devplein.test', 'docent@devplein.test');
    const answer = await sessions.student.json<ErrorJson>('DELETE', `${OWN_LIST}/${id}`);
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('al goedgekeurd');
    expect(answer.body.errors?.license?.[0]).toContain('al goedgekeurd');
    expect(await stack.database.knex('licenses').where('id', id).first('id')).toEqual({ id });
  });
});
