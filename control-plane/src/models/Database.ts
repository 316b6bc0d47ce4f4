import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A MySQL/MariaDB database the agent made for a developer; the password is encrypted at rest. */
export class Database extends AppModel {
  static override tableName = 'databases';

  declare id: number;
  declare user_id: number;
  declare name: string;
  declare db_user: string;
  declare password_encrypted: string;
  declare created_at: Date;
  /** Its dev server; null is the first one. */
  declare host: string | null;

  declare user?: User;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'databases.user_id', to: 'users.id' },
    },
  });
}
