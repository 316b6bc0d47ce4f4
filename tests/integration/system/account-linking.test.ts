import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followSignIn, startOutsideSignInStack, type OutsideIdentity, type OutsideSignInStack } from '../../support/services/outside-provider.ts';

/**
 * A school sign-in whose e-mail address another account already holds (auth/user-upsert.ts).
 * Such an account is linked only when the provider vouches for the address and the account has
 * no school login yet; otherwise the sign-in never answers 500: an unvouched address that is
 * taken gets a new, not activated account with a placeholder address (Entra ID never vouches:
 * imported students must not be claimable by anyone typing their address), an address linked to
 * another school login is refused with a Dutch page, and a changed address that is taken is not
 * taken over.
 */
let stack: OutsideSignInStack;

beforeAll(async () => {
  stack = await startOutsideSignInStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** Follows the sign-in of `identity` to its end: the app's landing path, or the answer that stopped it. */
async function signIn(identity: OutsideIdentity): Promise<{ landing?: string; status: number; text: string }> {
  const { landing, status, text } = await followSignIn(stack, identity);
  return { landing, status, text };
}

const usersWithName = (name: string) => stack.database.knex('users').where({ name }).orderBy('id').select('id', 'email', 'oidc_subject', 'email_verified_at');

describe('a school sign-in with an e-mail address another account holds', () => {
  it('unvouched: a new, not activated account with a placeholder address; the imported one stays unlinked', async () => {
    await stack.database.knex('users').insert({ name: 'Geïmporteerd', name_slug: 'geimporteerd', email: 'student@school.test', email_verified_at: new Date() });
    const answer = await signIn({ subject: 'entra-1', email: 'Student@school.test', emailVerified: false, name: 'Nieuwe Naam' });
    expect(answer).toMatchObject({ landing: '/not_verified' });
    expect(await usersWithName('Nieuwe Naam')).toMatchObject([{ email: 'entra-1@onbekend.invalid', oidc_subject: 'entra-1', email_verified_at: null }]);
    expect(await usersWithName('Geïmporteerd')).toMatchObject([{ email: 'student@school.test', oidc_subject: null }]);
  });

  it('vouched but linked to another school login: refused with a Dutch page, nothing made', async () => {
    await stack.database.knex('users').insert({ name: 'Al Gekoppeld', name_slug: 'al-gekoppeld', email: 'bezet@school.test', oidc_issuer: stack.provider.issuer, oidc_subject: 'ander' });
    const answer = await signIn({ subject: 'tweede', email: 'bezet@school.test', emailVerified: true, name: 'Tweede Login' });
    expect(answer.status).toBe(409);
    expect(answer.text).toContain('Dit e-mailadres hoort al bij een ander schoolaccount.');
    expect(await usersWithName('Tweede Login')).toEqual([]);
  });

  it('an existing login whose vouched address changed to a taken one: signed in, its own address kept', async () => {
    await stack.database.knex('users').insert({ name: 'Houder', name_slug: 'houder', email: 'gewild@school.test' });
    expect(await signIn({ subject: 'wisselaar', email: 'eigen@school.test', emailVerified: true, name: 'Wisselaar' })).toMatchObject({ landing: '/not_verified' });
    expect(await signIn({ subject: 'wisselaar', email: 'gewild@school.test', emailVerified: true, name: 'Wisselaar' })).toMatchObject({ landing: '/not_verified' });
    expect(await usersWithName('Wisselaar')).toMatchObject([{ email: 'eigen@school.test' }]);
    expect(await usersWithName('Houder')).toMatchObject([{ email: 'gewild@school.test' }]);
  });
});
