import type { Knex } from 'knex';
import grant from 'grant';
import type { Logger } from 'pino';
import type { JWTVerifyGetKey } from 'jose';
import type { AppContext, AppMiddleware } from '../app-context.ts';
import { discoverProvider, type ProviderMetadata } from './discovery.ts';
import { remoteKeys, verifyIdToken, IdTokenError } from './id-token.ts';
import { upsertUserFromIdentity } from './user-upsert.ts';
import { csrfTokenOf } from './csrf.ts';

export interface SchoolProvider {
  /** Short name in the login path: /auth/{name}. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** Where grant hands over after the code exchange; outside /auth so grant does not take it as a provider. */
export const SIGN_IN_FINISH_PATH = '/session/start';

interface GrantSession {
  nonce?: string;
  response?: {
    id_token?: string;
    profile?: Record<string, unknown>;
    error?: unknown;
  };
}

type KoaGrantFactory = (config: Record<string, unknown>) => AppMiddleware;

/**
 * Sign-in with the school's OpenID Connect provider through grant (authorization code + PKCE,
 * state and nonce), then our own id_token verification and session regeneration.
 */
export function schoolSignIn(options: {
  provider: SchoolProvider;
  appUrl: string;
  knex: Knex;
  logger: Logger;
  secureCookies: boolean;
}): AppMiddleware {
  const { provider, knex, logger } = options;
  const loginPath = `/auth/${provider.name}`;
  let ready: Promise<{ metadata: ProviderMetadata; keys: JWTVerifyGetKey; grantMiddleware: AppMiddleware }> | null = null;

  /** Discovery happens on first use (the provider may be served by this very process). */
  function setUp() {
    ready ??= discoverProvider(provider.issuer)
      .then((metadata) => {
        const factory = (grant as unknown as { koa: () => KoaGrantFactory }).koa();
        const grantMiddleware = factory({
          defaults: {
            origin: options.appUrl,
            prefix: '/auth',
            transport: 'session',
            state: true,
            nonce: true,
            pkce: true,
          },
          [provider.name]: {
            oauth: 2,
            authorize_url: metadata.authorization_endpoint,
            access_url: metadata.token_endpoint,
            profile_url: metadata.userinfo_endpoint,
            key: provider.clientId,
            secret: provider.clientSecret,
            scope: ['openid', 'email', 'profile'],
            scope_delimiter: ' ',
            response: ['tokens', 'jwt', 'profile'],
            token_endpoint_auth_method: 'client_secret_post',
            callback: SIGN_IN_FINISH_PATH,
            // No query parameter may override this provider's settings; only our login_hint (state.dynamic).
            dynamic: [],
          },
        });
        return { metadata, keys: remoteKeys(metadata.jwks_uri), grantMiddleware };
      })
      .catch((error: unknown) => {
        ready = null;
        throw error;
      });
    return ready;
  }

  async function finishSignIn(ctx: AppContext): Promise<void> {
    const { metadata, keys } = await setUp();
    const grantSession = (ctx.session?.grant ?? {}) as GrantSession;
    const idToken = grantSession.response?.id_token;
    if (ctx.session) delete ctx.session.grant;
    if (!idToken) {
      logger.warn({ error: grantSession.response?.error }, 'sign-in without id_token');
      return signInFailed(ctx, 'De inlogdienst gaf geen geldig antwoord.');
    }
    let identity;
    try {
      identity = await verifyIdToken(idToken, {
        issuer: metadata.issuer,
        audience: provider.clientId,
        keys,
        nonce: grantSession.nonce,
      });
    } catch (error) {
      if (error instanceof IdTokenError) {
        logger.warn({ reason: error.message }, 'id_token refused');
        return signInFailed(ctx, 'De inlogdienst gaf geen geldig antwoord.');
      }
      throw error;
    }
    const profile = grantSession.response?.profile ?? {};
    identity.email ??= typeof profile.email === 'string' ? profile.email : null;
    identity.name ??= typeof profile.name === 'string' ? profile.name : null;
    if (!identity.emailVerified && profile.email_verified === true) identity.emailVerified = true;

    const userId = await upsertUserFromIdentity(knex, identity);
    const account = await knex('users')
      .select('disabled_at', 'email_verified_at')
      .where({ id: userId })
      .first<{ disabled_at: Date | null; email_verified_at: Date | null }>();
    if (account?.disabled_at) {
      ctx.session = null;
      return ctx.redirect('/not_verified');
    }
    // A new session id at sign-in: a session id planted before sign-in is worthless afterwards.
    await ctx.session?.regenerate();
    if (ctx.session) {
      ctx.session.userId = userId;
      delete ctx.session.csrf;
      csrfTokenOf(ctx);
    }
    logger.info({ userId }, 'signed in');
    // A new account waits for a teacher to activate it: it lands on the page that says so.
    ctx.redirect(account?.email_verified_at ? '/' : '/not_verified');
  }

  function signInFailed(ctx: AppContext, message: string): void {
    ctx.status = 401;
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="nl"><meta charset="utf-8"><title>Inloggen mislukt</title>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto"><h1>Inloggen mislukt</h1><p>${message}</p>
<p><a href="${loginPath}">Probeer het opnieuw</a></p></body></html>`;
  }

  return async (ctx, next) => {
    if (ctx.path === SIGN_IN_FINISH_PATH && ctx.method === 'GET') return finishSignIn(ctx);
    if (ctx.path !== loginPath && !ctx.path.startsWith(`${loginPath}/`)) return next();
    const { grantMiddleware } = await setUp();
    const hint = ctx.query.login_hint;
    if (ctx.path === loginPath && typeof hint === 'string' && hint.length > 0 && hint.length <= 254) {
      // grant always applies state.dynamic: the hint goes to the provider's authorize request.
      ctx.state.grant = { dynamic: { custom_params: { login_hint: hint } } };
    }
    return grantMiddleware(ctx, next);
  };
}
