import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeAuditReading } from '../../policies/audit-policy.ts';
import { presentAuditEntry, type AuditEntryRow } from '../../presenters/present-audit-entry.ts';
import { auditQuery, type AuditQuery } from './schema.ts';

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The filters of the list, shared by the page query and its count. */
function filtered(knex: Knex, query: AuditQuery): Knex.QueryBuilder {
  const builder = knex('audit_log as a');
  if (query.actor !== undefined) builder.where('a.actor_id', query.actor);
  if (query.kind !== undefined) {
    const kind = query.kind;
    builder.where((where) => where.where('a.action', kind).orWhereLike('a.action', `${escapeLike(kind)}.%`));
  }
  if (query.subject_type !== undefined) builder.where('a.subject_type', query.subject_type);
  if (query.subject_id !== undefined) builder.where('a.subject_id', query.subject_id);
  return builder;
}

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
    const [rows, counted] = await Promise.all([
      filtered(knex, query)
        .leftJoin('users as actor', 'actor.id', 'a.actor_id')
        // Only user subjects get a name: other subjects' ids are shown as they are.
        .leftJoin('users as subject', (join) => join.on(knex.raw("a.subject_type = 'user' and subject.id::text = a.subject_id")))
        .orderBy([
          { column: 'a.created_at', order: 'desc' },
          { column: 'a.id', order: 'desc' },
        ])
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page)
        .select<AuditEntryRow[]>(
          'a.id', 'a.created_at', 'a.actor_id', 'actor.name as actor_name', 'a.action', 'a.subject_type', 'a.subject_id',
          'subject.name as subject_name', 'a.before', 'a.after',
        ),
      filtered(knex, query).count<Array<{ total: number | string }>>({ total: '*' }),
    ]);
    ctx.body = {
      data: rows.map(presentAuditEntry),
      page: query.page,
      per_page: query.per_page,
      total: Number(counted[0]?.total ?? 0),
    };
  });

  router.get('/api/admin/audit/facets', async (ctx) => {
    authorizeAuditReading(activeUser(ctx));
    const [actors, kinds] = await Promise.all([
      knex('users')
        .whereIn('id', knex('audit_log').whereNotNull('actor_id').distinct('actor_id'))
        .orderBy([{ column: 'name' }, { column: 'id' }])
        .select<Array<{ id: number; name: string }>>('id', 'name'),
      knex('audit_log')
        .select<Array<{ kind: string }>>(knex.raw("distinct split_part(action, '.', 1) as kind"))
        .orderBy('kind'),
    ]);
    ctx.body = { actors, kinds: kinds.map((row) => row.kind) };
  });

  return router;
}
