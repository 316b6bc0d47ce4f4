import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of the audit trail (GET /api/admin/audit). */
export function adminAuditRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
