import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeAuditReading } from '../../policies/audit-policy.ts';
import { presentAuditEntry } from '../../presenters/present-audit-entry.ts';
import { auditFacets, auditPage } from '../../queries/audit.ts';
import { auditQuery } from './schema.ts';

/**
 * The audit trail (admins only). Read-only on purpose: there is no route that changes or deletes
 * an entry, and migration 0006 makes the table append-only in the database as well.
 *
 * - GET /api/admin/audit?page=&per_page=&actor=&kind=&subject_type=&subject_id=
 *   → {data: [entry], page, per_page, total}, newest first (created_at, then id).
 * - GET /api/admin/audit/facets → {actors: [{id, name}], kinds: [prefix]}: the filter choices
 *   (people who ever wrote an entry and the action prefixes in the log).
 */
export function adminAuditRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.get('/api/admin/audit', async (ctx) => {
    authorizeAuditReading(activeUser(ctx));
    const query = parseInput(ctx, auditQuery, 'query');
    const { rows, total } = await auditPage(knex, query);
    ctx.body = {
      data: rows.map(presentAuditEntry),
      page: query.page,
      per_page: query.per_page,
      total,
    };
  });

  router.get('/api/admin/audit/facets', async (ctx) => {
    authorizeAuditReading(activeUser(ctx));
    ctx.body = await auditFacets(knex);
  });

  return router;
}
