import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSession } from '../../support/clients/http-session.ts';
import { startOutsideSignInStack, type OutsideSignInStack } from '../../support/services/outside-provider.ts';

/*
 * An outside identity provider (the school's, as the control plane sees it over HTTP) told to sign
 * its id_tokens with a key it does not publish. grant does not verify signatures: this proves
 * the control plane does.
 */
let stack: OutsideSignInStack;

beforeAll(async () => {
  stack = await startOutsideSignInStack();
});

afterAll(async () => {
  await stack?.stop();
});

describe('id_token verification against an outside provider', () => {
  it('refuses an id_token signed by a key the provider does not publish: no session, no user', async () => {
    stack.provider.signWithUnpublishedKey(true);
    const session = new HttpSession(stack.app.url);
    const landing = await session.follow('/auth/school');
    expect(landing.status).toBe(401);
    expect(await landing.text()).toContain('Inloggen mislukt');
    expect((await session.json('GET', '/api/user')).status).toBe(401);
    expect(await stack.database.knex('users').where({ oidc_subject: 'outside-1' }).first()).toBeUndefined();
  });

  it('accepts a properly signed id_token and creates a not-yet-activated user', async () => {
    stack.provider.signWithUnpublishedKey(false);
    const session = new HttpSession(stack.app.url);
    const landing = await session.follow('/auth/school');
    expect(landing.status).toBe(200);
    const me = await session.json<{ email: string; email_verified_at: string | null }>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('buiten@school.test');
    expect(me.body.email_verified_at).toBeNull();
  });

  it('waits for a slow provider: a token and userinfo answer after 7 s still sign in (grant gave up after 5 s)', async () => {
    stack.provider.answerSlowly(7_000);
    try {
      const session = new HttpSession(stack.app.url);
      const landing = await session.follow('/auth/school');
      expect(landing.status).toBe(200);
      expect((await session.json('GET', '/api/user')).status).toBe(200);
    } finally {
      stack.provider.answerSlowly(0);
    }
  }, 60_000);

  it('does not run the development identity provider when a school provider is configured', async () => {
    const response = await fetch(`${stack.app.url}/dev-idp/.well-known/openid-configuration`);
    expect(response.status).not.toBe(200);
  });
});
