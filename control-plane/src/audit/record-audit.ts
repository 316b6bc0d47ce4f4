import type { Knex } from 'knex';
import type { AuditAction } from '@devplein/contract/audit';
import { AuditLogEntry } from '../models/AuditLogEntry.ts';

/** One admin write, as the audit trail keeps it. */
export interface AuditEvent {
  /** Who did it (null for the system itself). */
  actorId: number | null;
  /** What happened, `<subject>.<verb>`, e.g. 'user.disable', 'project.approve', 'team.add-member'. */
  action: AuditAction;
  subjectType: string;
  subjectId: string | number;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/**
 * Appends an entry to the audit log. Pass the transaction of the write it describes, so the
 * change and its record commit (or fail) together. The log is append-only: nothing updates or
 * deletes its rows.
 */
export async function recordAudit(db: Knex | Knex.Transaction, event: AuditEvent): Promise<void> {
  // The model writes before/after as JSON (jsonAttributes). Inserted without reading back: the
  // table is append-only and nothing needs the new row.
  await AuditLogEntry.query(db).insert({
    actor_id: event.actorId,
    action: event.action,
    subject_type: event.subjectType,
    subject_id: String(event.subjectId),
    before: event.before ?? null,
    after: event.after ?? null,
  });
}
