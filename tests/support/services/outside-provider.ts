import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { Knex } from 'knex';
import { startControlPlane, type RunningControlPlane } from './control-plane.ts';
import { createTestDatabase } from './database.ts';
import { HttpSession } from '../clients/http-session.ts';
import { findFreePort } from '../clients/ports.ts';

/** Who the outside provider says signs in next. */
export interface OutsideIdentity {
  subject: string;
  email: string;
  /** The id_token's email_verified claim. */
  emailVerified: boolean;
  name: string;
  /** Further claims of the id_token, e.g. `{ groups: ['klas-sd25'] }` (the group sync). */
  claims?: Record<string, unknown>;
}

export interface OutsideProviderOptions {
  /**
   * Sign in whoever the authorize request's login_hint names (subject and address the hint, the
   * address verified) instead of the identity of signInAs: a benchmark's hundreds of sign-ins.
   */
  identityFromLoginHint?: boolean;
}

export interface OutsideProvider {
  /** Its issuer URL: give it to the control plane as OIDC_ISSUER (client devplein, any secret). */
  issuer: string;
  /** The control plane's OIDC_* settings for this provider. */
  env: Record<string, string>;
  /** The identity every following sign-in gets, until changed. */
  signInAs(identity: OutsideIdentity): void;
  /** From now on, id_tokens are signed with a key the provider does not publish (or again with its own). */
  signWithUnpublishedKey(rogue: boolean): void;
  /** From now on, the token and userinfo endpoints answer only after this long (a slow school provider); 0: at once. */
  answerSlowly(delayMs: number): void;
  close(): Promise<void>;
}

/**
 * A school identity provider outside the control plane, over HTTP (discovery, authorize, token,
 * userinfo, jwks): it signs in whoever signInAs named, without asking, with the email_verified
 * claim the test chooses (the development provider always says true). grant does not verify
 * signatures: signWithUnpublishedKey proves the control plane does.
 */
export async function startOutsideProvider(options: OutsideProviderOptions = {}): Promise<OutsideProvider> {
  const port = await findFreePort();
  const issuer = `http://127.0.0.1:${port}`;
  const published = await generateKeyPair('RS256');
  const unpublished = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: 'outside-key', alg: 'RS256', use: 'sig' };
  // code → the sign-in it was given for; access token → whose profile userinfo answers
  const pending = new Map<string, { nonce: string; identity: OutsideIdentity }>();
  const profiles = new Map<string, OutsideIdentity>();
  let codes = 0;
  let current: OutsideIdentity = { subject: 'outside-1', email: 'buiten@school.test', emailVerified: true, name: 'Bo Buiten' };
  let rogue = false;
  let delayMs = 0;

  const identityOf = (url: URL): OutsideIdentity => {
    const hint = url.searchParams.get('login_hint');
    if (!options.identityFromLoginHint || !hint) return current;
    return { subject: hint, email: hint, emailVerified: true, name: hint.split('@')[0]! };
  };

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/userinfo') {
      const profile = profiles.get((req.headers.authorization ?? '').replace(/^Bearer /, '')) ?? current;
      // The profile says nothing about verification: only the id_token's claim counts.
      return json(200, { sub: profile.subject, email: profile.email, name: profile.name });
    }
    if (url.pathname === '/authorize') {
      const code = `code-${++codes}`;
      pending.set(code, { nonce: url.searchParams.get('nonce') ?? '', identity: identityOf(url) });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      res.end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const code = form.get('code') ?? '';
        const grant = pending.get(code);
        // A code is good for one token.
        pending.delete(code);
        if (!grant) return json(400, { error: 'invalid_grant' });
        const { nonce, identity } = grant;
        const accessToken = `at-${code}`;
        profiles.set(accessToken, identity);
        void new SignJWT({ ...identity.claims, email: identity.email, email_verified: identity.emailVerified, name: identity.name, nonce })
          .setProtectedHeader({ alg: 'RS256', kid: 'outside-key' })
          .setIssuer(issuer)
          .setAudience(form.get('client_id') ?? '')
          .setSubject(identity.subject)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(rogue ? unpublished.privateKey : published.privateKey)
          .then((idToken) => json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: idToken }));
      });
      return;
    }
    json(404, { error: 'not_found' });
  };
  // The calls the control plane makes server to server (not the browser's authorize) may be slow.
  const server: Server = createServer((req, res) => {
    const serverToServer = /^\/(token|userinfo)(\?|$)/.test(req.url ?? '');
    if (delayMs > 0 && serverToServer) setTimeout(() => answer(req, res), delayMs);
    else answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    env: { DEV_LOGIN: '', OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'devplein', OIDC_CLIENT_SECRET: 'outside-secret', OIDC_PROVIDER_NAME: 'school' },
    signInAs: (identity) => {
      current = identity;
    },
    signWithUnpublishedKey: (on) => {
      rogue = on;
    },
    answerSlowly: (ms) => {
      delayMs = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A throwaway database, an outside provider and a control plane that signs in there. */
export interface OutsideSignInStack {
  database: { url: string; knex: Knex; destroy: () => Promise<void> };
  provider: OutsideProvider;
  app: RunningControlPlane;
  stop(): Promise<void>;
}

export async function startOutsideSignInStack(env: Record<string, string> = {}): Promise<OutsideSignInStack> {
  const database = await createTestDatabase();
  const provider = await startOutsideProvider();
  const app = await startControlPlane({ databaseUrl: database.url, env: { ...provider.env, ...env } });
  return {
    database,
    provider,
    app,
    stop: async () => {
      await app.stop();
      await provider.close();
      await database.destroy();
    },
  };
}

/**
 * Signs in at the outside provider as `identity` and follows the redirects to their end: where
 * the sign-in sends the browser in the app ('/' when activated, '/not_verified' when not; the
 * page itself is the web app's), or the answer that stopped it, with the session it left.
 */
export async function followSignIn(
  stack: Pick<OutsideSignInStack, 'provider' | 'app'>,
  identity: OutsideIdentity,
): Promise<{ session: HttpSession; landing?: string; status: number; text: string }> {
  stack.provider.signInAs(identity);
  const { url } = stack.app;
  const session = new HttpSession(url);
  let response = await session.raw('/auth/school');
  for (let hop = 0; hop < 15 && response.status >= 300 && response.status < 400; hop++) {
    const location = new URL(response.headers.get('location') ?? '', response.url || url);
    if (location.origin === url && (location.pathname === '/' || location.pathname === '/not_verified')) {
      return { session, landing: location.pathname, status: response.status, text: '' };
    }
    response = await session.raw(location.toString());
  }
  return { session, status: response.status, text: await response.text() };
}
