import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A user's WireGuard peer (at most one per user); `identifier` is the download path's key. */
export class VpnConfig extends AppModel {
  static override tableName = 'vpn_configs';

  declare id: number;
  declare user_id: number;
  declare identifier: string;
  declare address: string;
  declare public_key: string;
  declare private_key_encrypted: string | null;
  declare created_at: Date;
  /** Its dev server; null is the first one. */
  declare host: string | null;

  declare user?: User;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'vpn_configs.user_id', to: 'users.id' },
    },
  });
}
