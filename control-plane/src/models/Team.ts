import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A working team of users. Team id 1 is special: its members see the project request counter. */
export class Team extends AppModel {
  static override tableName = 'teams';

  declare id: number;
  declare name: string;

  declare users?: User[];

  static override relationMappings = (): RelationMappings => ({
    users: {
      relation: Model.ManyToManyRelation,
      modelClass: User,
      join: {
        from: 'teams.id',
        through: { from: 'team_user.team_id', to: 'team_user.user_id', extra: { joined_at: 'created_at' } },
        to: 'users.id',
      },
    },
  });
}
