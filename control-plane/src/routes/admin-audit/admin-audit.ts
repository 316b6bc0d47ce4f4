import Router from '@koa/router';
import { auditFacets as auditFacetsEndpoint, readAudit } from '@devplein/contract/http/admin-audit';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { presentAuditEntry } from '../../presenters/present-audit-entry.ts';
import { auditFacets, auditPage } from '../../queries/audit.ts';
import { handle } from '../handle.ts';

/**
 * The audit trail (contract/src/http/admin-audit.ts: admins only). Read-only on purpose: there is
 * no route that changes or deletes an entry, and migration 0006 makes the table append-only in
 * the database as well.
 *
 * - GET /api/admin/audit?page=&per_page=&actor=&kind=&subject_type=&subject_id=
 *   → {data: [entry], page, per_page, total}, newest first (created_at, then id).
 * - GET /api/admin/audit/facets → {actors: [{id, name}], kinds: [prefix]}: the filter choices
 *   (people who ever wrote an entry and the action prefixes in the log).
 */
export function adminAuditRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  handle(router, readAudit, async (_ctx, { query }) => {
    const { rows, total } = await auditPage(knex, query);
    return { data: rows.map(presentAuditEntry), page: query.page, per_page: query.per_page, total };
  });

  handle(router, auditFacetsEndpoint, async () => auditFacets(knex));

  return router;
}
