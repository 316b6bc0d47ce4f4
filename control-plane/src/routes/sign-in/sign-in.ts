import Router from '@koa/router';
import { finishSignIn, signIn, signInCallback } from '@devplein/contract/http/auth';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { NOT_OUR_SIGN_IN, schoolSignIn } from '../../auth/school-login.ts';
import { notFound } from '../../errors.ts';
import { handle } from '../handle.ts';

/**
 * Signing in with the school provider (spec §2; contract/src/http/auth.ts): the login link, the
 * provider's way back and the finish, each a step of auth/school-login.ts. Another provider name
 * than ours is a 404 (as is any other path under /auth: app.ts).
 */
export function signInRoutes(deps: Pick<AppDeps, 'config' | 'knex' | 'logger' | 'agents' | 'schoolProvider'>): AppRouter {
  const router: AppRouter = new Router();
  const { config, knex, logger } = deps;
  const login = schoolSignIn({
    provider: deps.schoolProvider,
    appUrl: config.appUrl,
    knex,
    logger,
    secureCookies: config.appUrl.startsWith('https://'),
    initialAdminEmails: config.INITIAL_ADMIN_EMAILS,
    groupSync: config.groupSync && { ...config.groupSync, hostAccess: { knex, agents: deps.agents, logger: logger.child({ component: 'host-access' }) } },
  });
  const ours = (provider: string): void => {
    if (provider !== deps.schoolProvider.name) throw notFound(NOT_OUR_SIGN_IN);
  };

  handle(router, signIn, async (ctx, { params, query }) => {
    ours(params.provider);
    await login.start(ctx, query.login_hint);
  });
  handle(router, signInCallback, async (ctx, { params }) => {
    ours(params.provider);
    await login.callback(ctx);
  });
  handle(router, finishSignIn, (ctx) => login.finish(ctx));
  return router;
}
