import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CurrentUserJson as UserJson } from '@devplein/contract/users';
import { followSignIn, startOutsideSignInStack, type OutsideIdentity, type OutsideSignInStack } from '../../support/services/outside-provider.ts';

/**
 * INITIAL_ADMIN_EMAILS: the first admin without SQL. The people listed become activated admins
 * at their first sign-in at the school's provider, only when it says their address is verified,
 * and only then (the account is created): a later sign-in never promotes again.
 */
let stack: OutsideSignInStack;

beforeAll(async () => {
  stack = await startOutsideSignInStack({ INITIAL_ADMIN_EMAILS: ' Beheerder@School.test, ict@school.test , directie@school.test,' });
});

afterAll(async () => {
  await stack?.stop();
});

/** Signs in as `identity`: where the sign-in ends ('/' or '/not_verified') and the user as GET /api/user shows them. */
async function signIn(identity: OutsideIdentity): Promise<UserJson & { landing: string }> {
  const { session, landing, status, text } = await followSignIn(stack, identity);
  if (!landing) throw new Error(`sign-in of ${identity.email} did not end on the app: ${status} ${text}`);
  const me = await session.json<UserJson>('GET', '/api/user');
  expect(me.status).toBe(200);
  return { ...me.body, landing };
}

async function adminAuditOf(userId: number) {
  return stack.database.knex('audit_log').where({ action: 'user.admin', subject_type: 'user', subject_id: String(userId) });
}

describe('INITIAL_ADMIN_EMAILS at the first school sign-in', () => {
  it('makes a listed, verified address an activated admin, with an audit entry without actor', async () => {
    // Listed in another case than the provider sends it: compared lowercased.
    const me = await signIn({ subject: 'bea', email: 'beheerder@school.test', emailVerified: true, name: 'Bea Beheer' });
    expect(me).toMatchObject({ email: 'beheerder@school.test', admin: true, landing: '/' });
    expect(me.email_verified_at).not.toBeNull();
    const audit = await adminAuditOf(me.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: null, before: null, after: { admin: true, email: 'beheerder@school.test', reason: 'INITIAL_ADMIN_EMAILS' } });
  });

  it('gives a listed address the provider does not vouch for nothing extra: an ordinary, not activated user', async () => {
    const me = await signIn({ subject: 'claimer', email: 'directie@school.test', emailVerified: false, name: 'Iemand Anders' });
    expect(me).toMatchObject({ admin: false, landing: '/not_verified' });
    expect(me.email_verified_at).toBeNull();
    expect(await adminAuditOf(me.id)).toEqual([]);
  });

  it('gives an address that is not listed nothing extra', async () => {
    const me = await signIn({ subject: 'sam', email: 'sam@school.test', emailVerified: true, name: 'Sam Student' });
    expect(me).toMatchObject({ admin: false, landing: '/not_verified' });
    expect(me.email_verified_at).toBeNull();
    expect(await adminAuditOf(me.id)).toEqual([]);
  });

  it('leaves an initial admin who was demoted later demoted at the next sign-in', async () => {
    const first = await signIn({ subject: 'ivo', email: 'ICT@school.test', emailVerified: true, name: 'Ivo ICT' });
    expect(first).toMatchObject({ email: 'ict@school.test', admin: true });
    // Demoted by another admin (the web app has no demote action yet: as its write would).
    await stack.database.knex('users').where({ id: first.id }).update({ admin: false });
    const again = await signIn({ subject: 'ivo', email: 'ict@school.test', emailVerified: true, name: 'Ivo ICT' });
    expect(again.id).toBe(first.id);
    expect(again.admin).toBe(false);
    // Still activated: the demotion took the admin flag only.
    expect(again.email_verified_at).not.toBeNull();
    expect(await adminAuditOf(first.id)).toHaveLength(1);
  });
});
