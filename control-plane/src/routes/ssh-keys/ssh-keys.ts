import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of SSH keys of the signed-in developer (/api/user/ssh_keys). */
export function sshKeyRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
