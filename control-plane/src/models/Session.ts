import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** The JSON a session holds (koa-session's `ctx.session`, auth/session-middleware.ts). */
export type SessionData = Record<string, unknown>;

/**
 * A server-side session. `user_id` is kept beside the data so that deleting or disabling a
 * user can end all of their sessions with one query.
 */
export class Session extends AppModel {
  static override tableName = 'sessions';
  static override jsonAttributes = ['data'];

  declare id: string;
  declare user_id: number | null;
  declare data: SessionData;
  declare expires_at: Date;

  declare user?: User | null;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'sessions.user_id', to: 'users.id' },
    },
  });
}
