import type { Knex } from 'knex';
import grant from 'grant';
import type { Logger } from 'pino';
import type { JWTVerifyGetKey } from 'jose';
import type { AppContext, AppMiddleware } from '../http-context.ts';
import { PROVIDER_TIMEOUT_MS, type ProviderDiscovery, type ProviderMetadata } from './discovery.ts';
import { remoteKeys, verifyIdToken, IdTokenError } from './id-token.ts';
import { AccountLinkRefused, upsertUserFromIdentity } from './user-upsert.ts';
import { renewSessionCsrf } from './csrf.ts';
import type { SessionData } from './session-store.ts';
import { claimValues, planGroups, type GroupMapping } from './group-mapping.ts';
import { syncIdentityGroups } from '../commands/sync-identity-groups.ts';
import type { HostAccessDeps } from '../commands/sync-project-access.ts';
import { notFound } from '../errors.ts';
import { finishSignIn as finishSignInEndpoint, signIn as signInEndpoint } from '@devplein/contract/http/auth';
import { pathOf } from '@devplein/contract/http/endpoint';

export interface SchoolProvider {
  /** Short name in the login path: /auth/{name}. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** Where grant hands over after the code exchange; outside /auth so grant does not take it as a provider. */
export const SIGN_IN_FINISH_PATH = finishSignInEndpoint.path;

/** The 404 of a path under /auth that is no sign-in of ours (another provider, another step). */
export const NOT_OUR_SIGN_IN = 'Deze inlogdienst bestaat niet.';

/** The session cookie's name: with the __Host- prefix over HTTPS (Secure, Path=/, no Domain: no sibling site can set it). */
export const sessionCookieName = (secure: boolean): string => (secure ? '__Host-devplein_session' : 'devplein_session');

/**
 * Set at logout: the next sign-in from this browser sends prompt=login, so the provider asks for
 * the account again even when its own session outlived ours (a provider without
 * end_session_endpoint, or a logout page at the provider left unconfirmed). Long-lived: the
 * next person at a shared lab PC may come days later.
 */
const promptLoginCookie = (secure: boolean): string => (secure ? '__Host-devplein_prompt_login' : 'devplein_prompt_login');
const PROMPT_LOGIN_MAX_AGE_MS = 30 * 24 * 3600_000;

/** Makes the next sign-in from this browser ask the provider for the account (see promptLoginCookie). */
export function askForAccountAtNextSignIn(ctx: AppContext, secure: boolean): void {
  ctx.cookies.set(promptLoginCookie(secure), '1', { httpOnly: true, sameSite: 'lax', secure, signed: false, maxAge: PROMPT_LOGIN_MAX_AGE_MS, overwrite: true });
}

/**
 * Where the browser goes after our session ended: the provider's end_session_endpoint (OpenID
 * Connect RP-initiated logout, with the sign-in's id_token as id_token_hint) so the school
 * sign-in ends too, then back to the app's home page; the home page itself when the provider
 * publishes no such endpoint or cannot be reached (the prompt=login cookie covers that case).
 */
export async function logoutDestination(options: { provider: SchoolProvider; discovery: ProviderDiscovery; appUrl: string; idToken?: string; logger: Logger }): Promise<string> {
  let metadata: ProviderMetadata;
  try {
    metadata = await options.discovery.metadata(options.provider.issuer);
  } catch (error) {
    options.logger.warn({ err: error }, 'logout: provider discovery failed; signed out here only');
    return '/';
  }
  if (!metadata.end_session_endpoint) return '/';
  const url = new URL(metadata.end_session_endpoint);
  if (options.idToken) url.searchParams.set('id_token_hint', options.idToken);
  url.searchParams.set('client_id', options.provider.clientId);
  url.searchParams.set('post_logout_redirect_uri', `${options.appUrl}/`);
  return url.toString();
}

interface GrantSession {
  nonce?: string;
  response?: {
    id_token?: string;
    profile?: Record<string, unknown>;
    error?: unknown;
  };
}

type KoaGrantFactory = (config: Record<string, unknown>) => AppMiddleware;

/** The three steps of a sign-in, served by routes/sign-in (contract/src/http/auth.ts). */
export interface SchoolSignIn {
  /** GET /auth/{provider}: to the provider's authorization endpoint, with our login_hint and prompt. */
  start(ctx: AppContext, loginHint: string | undefined): Promise<void>;
  /** GET /auth/{provider}/callback: grant's state check and code exchange, then to /session/start. */
  callback(ctx: AppContext): Promise<void>;
  /** GET /session/start: the id_token verified, the account made or linked, a new session. */
  finish(ctx: AppContext): Promise<void>;
}

/**
 * Sign-in with the school's OpenID Connect provider through grant (authorization code + PKCE,
 * state and nonce), then our own id_token verification and session regeneration. Nothing of the
 * provider is read before the first sign-in (the route table builds this without one).
 */
export function schoolSignIn(options: {
  provider: SchoolProvider;
  /** The app's discovery cache (shared with logout). */
  discovery: ProviderDiscovery;
  appUrl: string;
  knex: Knex;
  logger: Logger;
  secureCookies: boolean;
  /** INITIAL_ADMIN_EMAILS: new accounts with these verified addresses become activated admins (user-upsert.ts). */
  initialAdminEmails?: readonly string[];
  /** OIDC_GROUPS_CLAIM + its mapping: applied at each sign-in (groupSync below); absent: groups stay manual. */
  groupSync?: { claim: string; mapping: GroupMapping; hostAccess: HostAccessDeps } | null;
}): SchoolSignIn {
  const { provider, knex, logger } = options;
  const promptCookie = promptLoginCookie(options.secureCookies);
  let ready: Promise<{ metadata: ProviderMetadata; keys: JWTVerifyGetKey; grantMiddleware: AppMiddleware }> | null = null;

  /** Discovery happens on first use (the provider may be served by this very process). */
  function setUp() {
    ready ??= options.discovery.metadata(provider.issuer)
      .then((metadata) => {
        const factory = (grant as unknown as { koa: () => KoaGrantFactory }).koa();
        const grantMiddleware = factory({
          // grant's own HTTP calls (token exchange, userinfo) give up after 5 s by default.
          request: { timeout: PROVIDER_TIMEOUT_MS },
          config: {
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

    let userId: number;
    try {
      userId = await upsertUserFromIdentity(knex, identity, { initialAdminEmails: options.initialAdminEmails });
    } catch (error) {
      if (!(error instanceof AccountLinkRefused)) throw error;
      logger.warn({ subject: identity.subject }, 'sign-in refused: its e-mail address belongs to another school login');
      return signInFailed(ctx, 'Dit e-mailadres hoort al bij een ander schoolaccount. Vraag een docent om hulp.', 409);
    }
    if (options.groupSync) await syncGroups(options.groupSync, userId, { ...grantSession.response?.profile, ...identity.claims });
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
    const session = ctx.session as SessionData | null;
    if (session) {
      session.userId = userId;
      session.idToken = idToken;
      session.signedInAt = Date.now();
      session.seenAt = session.signedInAt;
      renewSessionCsrf(session);
    }
    // The account was asked for: the next sign-in may use the provider's session again.
    if (ctx.cookies.get(promptCookie)) ctx.cookies.set(promptCookie, null, { secure: options.secureCookies, overwrite: true });
    logger.info({ userId }, 'signed in');
    // A new account waits for a teacher to activate it: it lands on the page that says so.
    ctx.redirect(account?.email_verified_at ? '/' : '/not_verified');
  }

  /**
   * The group sync (sync-identity-groups.ts) with the groups claim of the id_token, else of the
   * userinfo answer. DECISION: a sign-in whose token has no such claim (or not a string or list
   * of strings) changes nothing and logs a warning: a provider that leaves the claim out now
   * and then (Entra ID's group overage, a missing scope) must not strip every teacher's rights.
   * An empty list is a claim: every managed field is cleared.
   */
  async function syncGroups(sync: NonNullable<typeof options.groupSync>, userId: number, claims: Record<string, unknown>): Promise<void> {
    const values = claimValues(claims, sync.claim);
    if (values === undefined) {
      logger.warn({ userId, claim: sync.claim }, 'sign-in without the groups claim: groups, teams and flags left as they are');
      return;
    }
    const plan = planGroups(sync.mapping, values);
    if (plan.ignoredCohorts.length > 0) {
      logger.warn({ userId, cohort: plan.cohort, ignored: plan.ignoredCohorts }, 'groups claim gives more than one cohort: the first in the mapping file counts');
    }
    const outcome = await syncIdentityGroups(sync.hostAccess, userId, plan, { keepAdminEmails: options.initialAdminEmails });
    if (outcome.changes.length > 0 || outcome.kept.length > 0 || outcome.accessNotDone) {
      logger.info({ userId, matched: plan.matched, changes: outcome.changes, kept: outcome.kept, accessNotDone: outcome.accessNotDone }, 'groups from the identity provider applied');
    }
  }

  function signInFailed(ctx: AppContext, message: string, status = 401): void {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="nl"><meta charset="utf-8"><title>Inloggen mislukt</title>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto"><h1>Inloggen mislukt</h1><p>${message}</p>
<p><a href="${pathOf(signInEndpoint, { provider: provider.name })}">Probeer het opnieuw</a></p></body></html>`;
  }

  /** grant answers every path of its prefix it knows; one it does not is no sign-in of ours. */
  const notOurs = async (): Promise<void> => {
    throw notFound(NOT_OUR_SIGN_IN);
  };

  return {
    async start(ctx, loginHint) {
      const { grantMiddleware } = await setUp();
      // grant always applies state.dynamic: these go to the provider's authorize request.
      const params: Record<string, string> = {};
      if (loginHint !== undefined) params.login_hint = loginHint;
      if (ctx.cookies.get(promptCookie)) params.prompt = 'login';
      if (Object.keys(params).length > 0) ctx.state.grant = { dynamic: { custom_params: params } };
      await grantMiddleware(ctx, notOurs);
    },
    async callback(ctx) {
      const { grantMiddleware } = await setUp();
      await grantMiddleware(ctx, notOurs);
    },
    finish: finishSignIn,
  };
}
