import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A developer's SSH public key; the fingerprint is unique across all users. */
export class SshKey extends AppModel {
  static override tableName = 'ssh_keys';

  declare id: number;
  declare user_id: number;
  declare name: string;
  declare public_key: string;
  declare fingerprint: string;
  declare created_at: Date;

  declare user?: User;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'ssh_keys.user_id', to: 'users.id' },
    },
  });
}
