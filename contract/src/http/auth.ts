/**
 * Signing in with the school's OpenID Connect provider (spec §2): the login link, the provider's
 * way back, and where the sign-in is finished. grant (control-plane/src/auth/school-login.ts)
 * does the OAuth part; the control plane verifies the id_token and starts the session.
 */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';

/** The provider's short name in the login path (OIDC_PROVIDER_NAME); another name is no sign-in of ours. */
const providerParams = z.object({ provider: z.string() });

export const signIn = endpoint({
  method: 'GET',
  path: '/auth/:provider',
  access: 'public',
  summary:
    "Starts a sign-in: to the school provider's authorization endpoint (authorization code + PKCE, state and nonce), with prompt=login after a logout from this browser. Rate-limited per client address. Another provider name: 404 'Deze inlogdienst bestaat niet.' (as any other path under /auth).",
  params: providerParams,
  query: z.object({
    /** Handed to the provider as its login_hint; a value that is none (too long, twice) is left out, never a 422. */
    login_hint: z.string().min(1).max(254).optional().catch(undefined),
  }),
  answer: { kind: 'redirect' },
});

export const signInCallback = endpoint({
  method: 'GET',
  path: '/auth/:provider/callback',
  access: 'public',
  summary:
    "The provider's way back (its code and state): grant checks the state and exchanges the code for the tokens, then sends the browser to /session/start, with an error there when the state or the exchange failed.",
  params: providerParams,
  answer: { kind: 'redirect' },
});

export const finishSignIn = endpoint({
  method: 'GET',
  path: '/session/start',
  access: 'public',
  summary:
    "Finishes a sign-in: verifies the id_token (issuer, audience, nonce, signature), makes or links the account, applies the provider's groups, and starts a new session; to / when activated, to /not_verified otherwise. No sign-in in progress or an invalid answer: 401, an e-mail address of another school account: 409 (a Dutch page with a link to try again).",
  answer: { kind: 'redirect' },
});

export const authEndpoints = [signIn, signInCallback, finishSignIn];
