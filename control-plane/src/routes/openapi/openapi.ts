import Router from '@koa/router';
import { ENDPOINTS, openApiEndpoint } from '@devplein/contract/http/all';
import { openApiDocument } from '@devplein/contract/http/openapi';
import type { AppRouter } from '../../app-context.ts';
import { CONTROL_PLANE_VERSION } from '../../metrics/operator-gauges.ts';
import { handle } from '../handle.ts';

/** GET /api/openapi.json for admins: the declared endpoints as OpenAPI 3.1 (docs/http-api.md). */
export function openApiRoutes(): AppRouter {
  const router: AppRouter = new Router();
  // The declarations do not change while the process runs: made once, at the first request.
  let document: Record<string, unknown> | undefined;
  handle(router, openApiEndpoint, async () => (document ??= openApiDocument(ENDPOINTS, CONTROL_PLANE_VERSION)));
  return router;
}
