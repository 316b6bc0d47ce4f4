import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { User } from './User.ts';

/** A cohort of students, e.g. SD22. Users without a group are "Niet ingedeeld". */
export class Group extends AppModel {
  static override tableName = 'groups';

  declare id: number;
  declare cohort: string;

  declare users?: User[];

  static override relationMappings = (): RelationMappings => ({
    users: {
      relation: Model.HasManyRelation,
      modelClass: User,
      join: { from: 'groups.id', to: 'users.group_id' },
    },
  });
}
