import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { createSecretBox } from '../../../control-plane/src/crypto/secret-box.ts';
import type { IntroduceeJson as Introducee } from '@devplein/contract/access';
import type { ErrorJson } from '@devplein/contract/http/errors';
import { createIntroducee, deleteIntroducee, listIntroducees } from '@devplein/contract/http/introducees';
import { call } from '../../support/clients/endpoint-calls.ts';

/*
 * Introducees ('meelopers') through the real control plane: admins only; names that become host
 * and git user names; a strong generated git password stored sealed (never the plain text in the
 * database, the audit log or the logs) and shown opened to admins.
 */

const PATH = listIntroducees.path;
const SITE_DOMAIN = 'meelopen.school.test';
const encryptionKey = randomBytes(32);

type Role = 'anonymous' | 'nieuw' | 'student' | 'developer' | 'docent' | 'admin';
const accounts: Record<Exclude<Role, 'anonymous'>, string> = {
  nieuw: 'nieuw@devplein.test',
  student: 'student@devplein.test',
  developer: 'ontwikkelaar@devplein.test',
  docent: 'docent@devplein.test',
  admin: 'admin@devplein.test',
};

// LOG_LEVEL info: so the test can check that no log line carries a password.
const stack = seededControlPlane({ accounts, env: { SITE_DOMAIN, ENCRYPTION_KEY: encryptionKey.toString('base64'), LOG_LEVEL: 'info' } });
const { sessions } = stack;

const userId = async (email: string): Promise<number> =>
  (await stack.database.knex('users').where({ email }).first<{ id: number }>('id')).id;

/** Creates one through the API as the admin and answers it from the returned list. */
async function create(name: string, role: 'admin' | 'docent' = 'admin'): Promise<Introducee> {
  const answer = await call(sessions[role], createIntroducee, { body: { name } });
  const created = answer.find((introducee) => introducee.name === name);
  if (!created) throw new Error(`${name} not in the answer`);
  return created;
}

describe('/api/admin/introduction: who may', () => {
  it('answers 401 to anonymous visitors on every call', async () => {
    expect((await sessions.anonymous.json('GET', PATH)).status).toBe(401);
    expect((await sessions.anonymous.json('POST', PATH, { name: 'mlpanoniem' })).status).toBe(401);
    expect((await sessions.anonymous.json('DELETE', `${PATH}/1`)).status).toBe(401);
  });

  it('answers 403 not_verified to a not-activated account', async () => {
    for (const [method, path, body] of [
      ['GET', PATH, undefined],
      ['POST', PATH, { name: 'mlpnieuw' }],
      ['DELETE', `${PATH}/1`, undefined],
    ] as const) {
      const answer = await sessions.nieuw.json<ErrorJson>(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.reason).toBe('not_verified');
    }
  });

  it.each(['student', 'developer'] as const)('answers 403 to %s, who is not an admin, and creates or deletes nothing', async (role) => {
    const existing = await create(`mlp${role}`);
    expect((await sessions[role].json('GET', PATH)).status).toBe(403);
    expect((await sessions[role].json('POST', PATH, { name: `mlpx${role}` })).status).toBe(403);
    expect((await sessions[role].json('DELETE', `${PATH}/${existing.id}`)).status).toBe(403);
    expect(await stack.database.knex('introducees').where('name', `mlpx${role}`).first()).toBeUndefined();
    expect(await stack.database.knex('introducees').where('id', existing.id).first('id')).toEqual({ id: existing.id });
  });

  it.each(['docent', 'admin'] as const)('gives %s the list', async (role) => {
    expect(Array.isArray(await call(sessions[role], listIntroducees, {}))).toBe(true);
  });
});

describe('creating and deleting introducees', () => {
  it('creates one with domain, git user name and a strong password, stored sealed', async () => {
    const answer = await call(sessions.admin, createIntroducee, { body: { name: '  mlpjansen  ' } });
    const jansen = answer.find((introducee) => introducee.name === 'mlpjansen');
    expect(jansen).toMatchObject({ domain: `mlpjansen.${SITE_DOMAIN}`, git_username: 'jansen' });
    expect(Object.keys(jansen ?? {}).sort()).toEqual(['created_at', 'domain', 'git_password', 'git_username', 'id', 'name']);
    const password = jansen!.git_password;
    expect(password).toMatch(/^[A-Za-z0-9_-]{20}$/);

    // The database holds a sealed value, not the password; it opens with the configured key.
    const row = await stack.database.knex('introducees').where('id', jansen!.id).first('password_encrypted');
    expect(row.password_encrypted).not.toBe(password);
    expect(row.password_encrypted).not.toContain(password);
    expect(createSecretBox(encryptionKey).open(row.password_encrypted)).toBe(password);

    // GET shows the same password again to admins.
    const list = await call(sessions.docent, listIntroducees, {});
    expect(list.find((introducee) => introducee.id === jansen!.id)?.git_password).toBe(password);

    // Audited without the password; no log line carries it.
    const audit = await stack.database.knex('audit_log').where({ action: 'introducee.create', subject_id: String(jansen!.id) }).first();
    expect(audit).toMatchObject({ actor_id: await userId('admin@devplein.test'), subject_type: 'introducee' });
    expect(audit.after).toMatchObject({ name: 'mlpjansen', git_username: 'jansen' });
    expect(JSON.stringify(audit)).not.toContain(password);
    expect(stack.app.output()).toContain('introducee created');
    expect(stack.app.output()).not.toContain(password);
  });

  it('gives every introducee its own password and lists them by name', async () => {
    const first = await create('mlpbakker');
    const second = await create('mlpakker2');
    expect(first.git_password).not.toBe(second.git_password);
    const names = (await call(sessions.admin, listIntroducees, {})).map((introducee) => introducee.name);
    expect(names).toEqual([...names].sort());
  });

  it('refuses a name that exists, or one whose git user name exists, with 422 bestaat al', async () => {
    await create('mlpdubbel');
    const count = async () => Number((await stack.database.knex('introducees').count('* as n').first())?.n);
    const before = await count();
    const same = await sessions.admin.json<ErrorJson>('POST', PATH, { name: 'mlpdubbel' });
    expect(same.status).toBe(422);
    expect(same.body.errors?.name?.[0]).toContain('bestaat al');
    const sameGitUser = await sessions.admin.json<ErrorJson>('POST', PATH, { name: 'xyzdubbel' });
    expect(sameGitUser.status).toBe(422);
    expect(sameGitUser.body.errors?.name?.[0]).toContain('bestaat al');
    expect(await count()).toBe(before);
  });

  it('creates exactly one when the same name arrives twice at once', async () => {
    const answers = await Promise.all([
      sessions.admin.json('POST', PATH, { name: 'mlptegelijk' }),
      sessions.docent.json('POST', PATH, { name: 'mlptegelijk' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
    expect(Number((await stack.database.knex('introducees').where('name', 'mlptegelijk').count('* as n').first())?.n)).toBe(1);
  });

  it('refuses names that are no host name or git user name with 422, never 500', async () => {
    const bad: unknown[] = [
      '',
      'abc',
      'Mlpjansen',
      'MLPJANSEN',
      '1mlpjansen',
      'mlp_jansen',
      'mlp jansen',
      'mlp.jansen',
      'mlp-jansen',
      'mlpjansen-',
      'a'.repeat(32),
      '../etc',
      'mlpjänsen',
      123,
      null,
      ['mlpjansen'],
      { name: 'mlpjansen' },
    ];
    for (const name of bad) {
      const answer = await sessions.admin.json<ErrorJson>('POST', PATH, { name });
      expect(answer.status, JSON.stringify(name)).toBe(422);
      expect(answer.body.errors?.name?.length, JSON.stringify(name)).toBeGreaterThan(0);
    }
    expect((await sessions.admin.json<ErrorJson>('POST', PATH, {})).status).toBe(422);
    expect((await sessions.admin.json<ErrorJson>('POST', PATH, [])).status).toBe(422);
    // The longest allowed: 31 characters.
    expect((await sessions.admin.json('POST', PATH, { name: `m${'a'.repeat(30)}` })).status).toBe(200);
  });

  it('deletes one (audited) and answers the updated list', async () => {
    const gone = await create('mlpweg');
    const answer = await call(sessions.docent, deleteIntroducee, { params: { id: gone.id } });
    expect(answer.some((introducee) => introducee.id === gone.id)).toBe(false);
    expect(await stack.database.knex('introducees').where('id', gone.id).first()).toBeUndefined();
    const audit = await stack.database.knex('audit_log').where({ action: 'introducee.delete', subject_id: String(gone.id) }).first();
    expect(audit).toMatchObject({ actor_id: await userId('docent@devplein.test'), subject_type: 'introducee' });
    expect(audit.before).toMatchObject({ name: 'mlpweg' });
    expect(JSON.stringify(audit)).not.toContain(gone.git_password);
  });

  it('answers 404 for one that does not exist and 422 for an id that is no number', async () => {
    expect((await sessions.admin.json('DELETE', `${PATH}/999999`)).status).toBe(404);
    for (const bad of ['abc', '0', '-1', '2.5']) {
      const answer = await sessions.admin.json<ErrorJson>('DELETE', `${PATH}/${bad}`);
      expect(answer.status, bad).toBe(422);
    }
  });
});
