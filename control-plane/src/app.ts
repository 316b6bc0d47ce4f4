import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { AppDeps, AppMiddleware, AppState } from './app-context.ts';
import { requestContext } from './middlewares/request-context.ts';
import { securityHeaders } from './middlewares/security-headers.ts';
import { compressAnswers } from './middlewares/compress.ts';
import { signInRateLimit, writeRateLimit } from './middlewares/rate-limit.ts';
import { createSessionStore, touchSession } from './auth/session-store.ts';
import { sessions } from './auth/session-middleware.ts';
import { createCsrf } from './auth/csrf.ts';
import { loadUser } from './middlewares/authenticate.ts';
import { settleBeforeSignedInRequests } from './auth/identity-notices.ts';
import { CachedKeygrip } from './auth/cached-keygrip.ts';
import { signedInNoStore } from './middlewares/no-store.ts';
import { NOT_OUR_SIGN_IN, sessionCookieName } from './auth/school-login.ts';
import { DEV_IDP_PATH } from './auth/dev-identity-provider-path.ts';
import { singlePageApp } from './spa/spa.ts';
import { HttpError } from './errors.ts';
import { appRouters } from './routes/route-table.ts';
import { DB_ADMIN_SIGNON_PATH } from './routes/db-admin/db-admin.ts';
import { AGENT_JOIN_PATH, AGENT_RENEW_PATH } from './routes/agent-join/agent-join.ts';
import { DEPLOY_HOOK_PREFIX } from './routes/deploy-hooks/deploy-hooks.ts';

/*
 * The HTTP middleware pipeline and nothing else: what the app is built from (AppDeps) lives in
 * app-context.ts, its services in app-services.ts, its routers in routes/route-table.ts, its
 * background work in background-work.ts.
 */

/** The other protocol's own endpoints (the development provider's token endpoint and forms). */
const csrfExempt = (path: string): boolean => path === DEV_IDP_PATH || path.startsWith(`${DEV_IDP_PATH}/`);

/*
 * The server-to-server paths, in this one place: the signon redeem (phpMyAdmin's signon
 * script), a dev server's join and certificate renewal, a git server's push. Each carries a
 * secret of its own instead of the browser session, so the pipeline neither loads the session
 * for them (no cache settle, no session store read, no session cookie set, no user loaded) nor
 * asks for a CSRF token; their answers always carry no-store. A new server-to-server path is
 * added here and nowhere else.
 */
const MACHINE_PATHS: ReadonlySet<string> = new Set([DB_ADMIN_SIGNON_PATH, AGENT_JOIN_PATH, AGENT_RENEW_PATH]);
const MACHINE_PATH_PREFIXES: readonly string[] = [DEPLOY_HOOK_PREFIX];
const isMachinePath = (path: string): boolean => MACHINE_PATHS.has(path) || MACHINE_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));

/** `middleware` on every path but the server-to-server ones (those go straight on). */
const exceptMachinePaths =
  (middleware: AppMiddleware): AppMiddleware =>
  (ctx, next) =>
    isMachinePath(ctx.path) ? next() : middleware(ctx, next);

/** Builds the Koa application; main.ts owns the process around it. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, knex, logger } = deps;
  const secure = config.appOnHttps;
  // Behind one reverse proxy (TRUST_PROXY) the client is the last X-Forwarded-For entry: the one
  // that proxy added. Earlier entries come from the client and could name any address.
  const app = new Koa<AppState>({ proxy: config.TRUST_PROXY, maxIpsCount: 1 });
  // keygrip signs and verifies the cookies; verified session ids are remembered (bounded).
  app.keys = new CachedKeygrip([config.sessionSecret]);
  app.silent = true;
  // Outermost: counts and times every request by route template (served on METRICS_LISTEN only).
  app.use(deps.metrics.httpMiddleware() as unknown as AppMiddleware);

  app.use(
    securityHeaders({
      onHttps: config.appOnHttps,
      realtime: config.realtimePublic,
      // oidc-provider's own sign-in and logout pages carry inline <style>; only there.
      inlineStylePrefix: deps.devIdentityProvider ? DEV_IDP_PATH : undefined,
    }),
  );
  app.use(compressAnswers());
  app.use(requestContext(logger));
  // The server-to-server paths skip everything of the browser session (MACHINE_PATHS).
  app.use(exceptMachinePaths(settleBeforeSignedInRequests(deps.identityNotices)));
  app.use(signInRateLimit({ points: config.RATE_LIMIT_SIGNIN_PER_MINUTE }));
  const sessionLimits = { maxAgeMs: config.sessionMaxAgeMs, idleMs: config.sessionIdleTimeoutMs };
  // The row is written when the data changes: at sign-in and when touchSession refreshes the
  // last-seen time (at most once a minute); the store derives the expiry from both.
  app.use(
    exceptMachinePaths(
      sessions(app, createSessionStore(knex, sessionLimits, deps.identity), {
        name: sessionCookieName(secure),
        maxAgeMs: config.sessionMaxAgeMs,
        secure,
      }),
    ),
  );
  app.use(exceptMachinePaths(touchSession(sessionLimits)));
  const parseBody = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: '256kb',
    formLimit: '64kb',
    // Bodies the parser refuses get a Dutch answer: too large → 413, unreadable JSON/form → 400.
    onError: (error) => {
      const type = (error as { type?: unknown }).type;
      if (type === 'entity.too.large') throw new HttpError(413, 'Het verzoek is te groot.');
      throw new HttpError(400, 'Het verzoek kon niet gelezen worden: ongeldige JSON of formuliergegevens.');
    },
  }) as unknown as AppMiddleware;
  app.use(async (ctx, next) => {
    // oidc-provider reads its own request bodies; its interaction form is ours.
    if (csrfExempt(ctx.path) && !ctx.path.startsWith(`${DEV_IDP_PATH}/interaction/`)) return next();
    // The deploy webhook checks an HMAC of the exact bytes: it reads its own body.
    if (ctx.path.startsWith(DEPLOY_HOOK_PREFIX)) return next();
    return parseBody(ctx, next);
  });
  if (deps.devIdentityProvider) app.use(deps.devIdentityProvider.middleware);
  const csrf = createCsrf({ secret: config.sessionSecret, secureCookie: secure });
  // The server-to-server paths carry a secret instead of a session: no CSRF token.
  app.use(csrf.middleware({ exempt: (path) => csrfExempt(path) || isMachinePath(path) }));
  app.use(exceptMachinePaths(loadUser(knex, deps.identity)));
  // The server-to-server answers (certificates, database credentials) too, though they load no session.
  app.use(signedInNoStore({ always: isMachinePath }));
  app.use(writeRateLimit({ points: config.RATE_LIMIT_WRITES_PER_MINUTE }));

  for (const router of appRouters(deps)) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/api/') || ctx.path === '/api') throw new HttpError(404, 'Deze API-route bestaat niet.');
    if (ctx.path.startsWith('/auth/') || ctx.path === '/auth') throw new HttpError(404, NOT_OUR_SIGN_IN);
    return next();
  });
  app.use(
    singlePageApp({
      webDist: config.WEB_DIST,
      csrfToken: csrf.pageToken,
      ssoProvider: config.OIDC_PROVIDER_NAME,
      siteDomain: config.SITE_DOMAIN,
      siteDomains: () => deps.agents.links.map((link) => link.siteDomain),
      realtime: { key: config.REALTIME_KEY, ...config.realtimePublic },
      // A student without databases yet gets them on the dev server new students go to.
      database: () => ({
        adminUrl: deps.agents.forNewUsers.dbAdminUrl,
        host: deps.agents.forNewUsers.studentDbHost,
        port: deps.agents.forNewUsers.studentDbPort,
        signon: Boolean(config.DB_ADMIN_SIGNON_URL),
      }),
    }),
  );
  return app;
}
