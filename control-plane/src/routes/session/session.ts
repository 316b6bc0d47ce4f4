import Router from '@koa/router';
import { logout, logoutByGet } from '@devplein/contract/http/session';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { postOnly } from '../../errors.ts';
import { askForAccountAtNextSignIn, logoutDestination } from '../../auth/school-login.ts';
import type { SessionData } from '../../auth/session-store.ts';
import { handle } from '../handle.ts';

const LOGOUT_BY_GET_MESSAGE = 'Uitloggen gaat met de knop Uitloggen in het menu, niet met een link.';

/**
 * POST /logout (CSRF token required, like every unsafe request): ends our session, asks for the
 * account at this browser's next sign-in, and answers where to go: the school provider's
 * end_session_endpoint, which ends the school sign-in and sends the browser back to the home
 * page signed out. The top menu's button posts it and follows `redirect`. GET /logout answers
 * 405 (a link must not sign anyone out). contract/src/http/session.ts.
 */
export function sessionRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const secure = () => deps.config.appOnHttps;

  handle(router, logoutByGet, async (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') {
      // Plain HTML: the CSP allows no inline style, and this page needs none.
      ctx.set('Allow', 'POST');
      ctx.status = 405;
      ctx.type = 'html';
      ctx.body = `<!doctype html><html lang="nl"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Uitloggen</title>
<body><h1>Uitloggen</h1><p>${LOGOUT_BY_GET_MESSAGE}</p>
<p><a href="/">Naar de startpagina</a></p></body></html>`;
      return;
    }
    postOnly(ctx, LOGOUT_BY_GET_MESSAGE);
  });

  handle(router, logout, async (ctx) => {
    const session = ctx.session as SessionData | null;
    const signedIn = typeof session?.userId === 'number';
    const idToken = typeof session?.idToken === 'string' ? session.idToken : undefined;
    ctx.session = null;
    askForAccountAtNextSignIn(ctx, secure());
    const redirect = signedIn ? await logoutDestination({ provider: deps.schoolProvider, discovery: deps.services.providerDiscovery, appUrl: deps.config.appUrl, idToken, logger: ctx.state.log }) : '/';
    if (signedIn) ctx.state.log.info({ userId: session?.userId, atProvider: redirect !== '/' }, 'signed out');
    ctx.set('Cache-Control', 'no-store');
    return { redirect };
  });

  return router;
}
