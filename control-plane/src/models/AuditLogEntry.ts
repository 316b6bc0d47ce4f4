import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** JSON snapshot of a record before or after a change. */
export type AuditSnapshot = Record<string, unknown>;

/**
 * Who did what to which record, and when. Rows are only ever inserted; `subject_id` is text
 * so that non-numeric keys fit.
 */
export class AuditLogEntry extends AppModel {
  static override tableName = 'audit_log';
  static override jsonAttributes = ['before', 'after'];

  declare id: number;
  declare actor_id: number | null;
  declare action: string;
  declare subject_type: string | null;
  declare subject_id: string | null;
  declare before: AuditSnapshot | null;
  declare after: AuditSnapshot | null;
  declare created_at: Date;

  declare actor?: User | null;

  static override relationMappings = (): RelationMappings => ({
    actor: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'audit_log.actor_id', to: 'users.id' },
    },
  });
}
