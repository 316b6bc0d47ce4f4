import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A software licence requested by a student or teacher; approved once `approved_at` is set. */
export class License extends AppModel {
  static override tableName = 'licenses';

  declare id: number;
  declare user_id: number;
  declare description: string;
  declare license: string;
  declare approved_at: Date | null;
  declare approved_by: number | null;
  declare created_at: Date;

  declare user?: User;
  declare approver?: User | null;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'licenses.user_id', to: 'users.id' },
    },
    approver: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'licenses.approved_by', to: 'users.id' },
    },
  });
}
