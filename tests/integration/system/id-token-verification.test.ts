import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { Knex } from 'knex';
import { createTestDatabase } from '../../support/database.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/control-plane.ts';
import { HttpSession } from '../../support/http-session.ts';
import { findFreePort } from '../../support/ports.ts';

/**
 * An outside identity provider (the school's, as the control plane sees it over HTTP) that can be
 * told to sign its id_tokens with a key it does not publish. grant does not verify signatures:
 * this proves the control plane does.
 */
async function startOutsideProvider() {
  const port = await findFreePort();
  const issuer = `http://127.0.0.1:${port}`;
  const published = await generateKeyPair('RS256');
  const unpublished = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: 'school-key', alg: 'RS256', use: 'sig' };
  const pending = new Map<string, string>();
  let signWithUnpublishedKey = false;

  const server: Server = createServer((req, res) => {
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
    if (url.pathname === '/userinfo') return json(200, { sub: 'outside-1', email: 'buiten@school.test', name: 'Bo Buiten' });
    if (url.pathname === '/authorize') {
      const code = `code-${pending.size + 1}`;
      pending.set(code, url.searchParams.get('nonce') ?? '');
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const nonce = pending.get(form.get('code') ?? '') ?? '';
        const key = signWithUnpublishedKey ? unpublished.privateKey : published.privateKey;
        void new SignJWT({ email: 'buiten@school.test', email_verified: true, name: 'Bo Buiten', nonce })
          .setProtectedHeader({ alg: 'RS256', kid: 'school-key' })
          .setIssuer(issuer)
          .setAudience(form.get('client_id') ?? '')
          .setSubject('outside-1')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key)
          .then((idToken) => json(200, { access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken }));
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    setRogue: (rogue: boolean) => {
      signWithUnpublishedKey = rogue;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let provider: Awaited<ReturnType<typeof startOutsideProvider>>;
let app: RunningControlPlane;

beforeAll(async () => {
  database = await createTestDatabase();
  provider = await startOutsideProvider();
  app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      DEV_LOGIN: '',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: 'devplein',
      OIDC_CLIENT_SECRET: 'outside-secret',
      OIDC_PROVIDER_NAME: 'school',
    },
  });
});

afterAll(async () => {
  await app?.stop();
  await provider?.close();
  await database?.destroy();
});

describe('id_token verification against an outside provider', () => {
  it('refuses an id_token signed by a key the provider does not publish: no session, no user', async () => {
    provider.setRogue(true);
    const session = new HttpSession(app.url);
    const landing = await session.follow('/auth/school');
    expect(landing.status).toBe(401);
    expect(await landing.text()).toContain('Inloggen mislukt');
    expect((await session.json('GET', '/api/user')).status).toBe(401);
    expect(await database.knex('users').where({ oidc_subject: 'outside-1' }).first()).toBeUndefined();
  });

  it('accepts a properly signed id_token and creates a not-yet-activated user', async () => {
    provider.setRogue(false);
    const session = new HttpSession(app.url);
    const landing = await session.follow('/auth/school');
    expect(landing.status).toBe(200);
    const me = await session.json<{ email: string; email_verified_at: string | null }>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('buiten@school.test');
    expect(me.body.email_verified_at).toBeNull();
  });

  it('does not run the development identity provider when a school provider is configured', async () => {
    const response = await fetch(`${app.url}/dev-idp/.well-known/openid-configuration`);
    expect(response.status).not.toBe(200);
  });
});
