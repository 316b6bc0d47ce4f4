import type { Knex } from 'knex';
import { escapeLike } from '../lib/like-pattern.ts';

/** One row of the audit log joined with its actor's (and, for users, its subject's) name. */
export interface AuditEntryRow {
  id: number;
  created_at: Date | string;
  actor_id: number | null;
  actor_name: string | null;
  action: string;
  subject_type: string | null;
  subject_id: string | null;
  subject_name: string | null;
  before: unknown;
  after: unknown;
}

/** The filters and page of the audit list (GET /api/admin/audit, parsed). */
export interface AuditFilter {
  page: number;
  per_page: number;
  actor?: number | undefined;
  /** An action or a prefix of whole segments: 'user' matches 'user.disable'. */
  kind?: string | undefined;
  subject_type?: string | undefined;
  subject_id?: string | undefined;
}

/** The filters of the list, shared by the page query and its count. */
function filtered(knex: Knex, query: AuditFilter): Knex.QueryBuilder {
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

/** One page of the audit log, newest first (created_at, then id), and how many entries match. */
export async function auditPage(knex: Knex, query: AuditFilter): Promise<{ rows: AuditEntryRow[]; total: number }> {
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
  return { rows, total: Number(counted[0]?.total ?? 0) };
}

/** The filter choices: people who ever wrote an entry (by name) and the action prefixes in the log. */
export async function auditFacets(knex: Knex): Promise<{ actors: Array<{ id: number; name: string }>; kinds: string[] }> {
  const [actors, kinds] = await Promise.all([
    knex('users')
      .whereIn('id', knex('audit_log').whereNotNull('actor_id').distinct('actor_id'))
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .select<Array<{ id: number; name: string }>>('id', 'name'),
    knex('audit_log')
      .select<Array<{ kind: string }>>(knex.raw("distinct split_part(action, '.', 1) as kind"))
      .orderBy('kind'),
  ]);
  return { actors, kinds: kinds.map((row) => row.kind) };
}
