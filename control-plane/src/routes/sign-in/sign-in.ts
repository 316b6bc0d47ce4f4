import Router from '@koa/router';
import { finishSignIn, signIn, signInCallback } from '@devplein/contract/http/auth';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { schoolSignIn } from '../../auth/school-login.ts';
import { handle } from '../handle.ts';

/**
 * Signing in with the school provider (spec §2; contract/src/http/auth.ts): the login link, the
 * provider's way back and the finish, each a step of auth/school-login.ts. Another provider name
 * than ours is handed on to app.ts's 404 for every other path under /auth.
 */
export function signInRoutes(deps: Pick<AppDeps, 'config' | 'knex' | 'logger' | 'agents' | 'schoolProvider' | 'services'>): AppRouter {
  const router: AppRouter = new Router();
  const { config, knex, logger } = deps;
  const login = schoolSignIn({
    provider: deps.schoolProvider,
    discovery: deps.services.providerDiscovery,
    appUrl: config.appUrl,
    knex,
    logger,
    secureCookies: config.appOnHttps,
    initialAdminEmails: config.INITIAL_ADMIN_EMAILS,
    groupSync: config.groupSync && { ...config.groupSync, hostAccess: { knex, agents: deps.agents, logger: logger.child({ component: 'host-access' }), locks: deps.services.locks } },
  });
  const anotherProvider = (ctx: AppContext): boolean => ctx.params.provider !== deps.schoolProvider.name;

  handle(router, signIn, (ctx, { query }) => login.start(ctx, query.login_hint), { passOver: anotherProvider });
  handle(router, signInCallback, (ctx) => login.callback(ctx), { passOver: anotherProvider });
  handle(router, finishSignIn, (ctx) => login.finish(ctx));
  return router;
}
