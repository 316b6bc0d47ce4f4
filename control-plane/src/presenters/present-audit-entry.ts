import type { AuditEntryJson } from '@devplein/contract/users';
import type { AuditEntryRow } from '../queries/audit.ts';
export type { AuditEntryJson };

/** jsonb arrives parsed from pg and PGlite alike; a string (older drivers) is parsed here. */
function snapshot(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { value: parsed };
}

export function presentAuditEntry(row: AuditEntryRow): AuditEntryJson {
  return {
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
    // A deleted actor leaves actor_id null (the foreign key sets it).
    actor: row.actor_id !== null && row.actor_name !== null ? { id: row.actor_id, name: row.actor_name } : null,
    action: row.action,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    subject_name: row.subject_name,
    before: snapshot(row.before),
    after: snapshot(row.after),
  };
}
