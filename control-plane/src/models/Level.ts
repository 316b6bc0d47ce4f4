import type { LevelStatus } from '@devplein/contract/levels';
import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { LevelCategory } from './LevelCategory.ts';
import { LevelContent } from './LevelContent.ts';
import { User } from './User.ts';

/**
 * One student's level `number` in a category. No row means the level does not exist yet for
 * that student (shown as locked); (user, category, number) is unique.
 */
export class Level extends AppModel {
  static override tableName = 'levels';

  declare id: number;
  declare user_id: number;
  declare level_category_id: number;
  declare level_content_id: number | null;
  declare number: number;
  declare status: LevelStatus;

  declare user?: User;
  declare category?: LevelCategory;
  declare content?: LevelContent | null;

  static override relationMappings = (): RelationMappings => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'levels.user_id', to: 'users.id' },
    },
    category: {
      relation: Model.BelongsToOneRelation,
      modelClass: LevelCategory,
      join: { from: 'levels.level_category_id', to: 'level_categories.id' },
    },
    content: {
      relation: Model.BelongsToOneRelation,
      modelClass: LevelContent,
      join: { from: 'levels.level_content_id', to: 'level_contents.id' },
    },
  });
}
