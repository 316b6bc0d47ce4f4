import { Model, type QueryContext, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Course } from './Course.ts';
import { LevelCategory } from './LevelCategory.ts';
import { byPositionThenId } from './ordering.ts';

/** What a level teaches: a title for students, one for teachers, and its courses in order. */
export class LevelContent extends AppModel {
  static override tableName = 'level_contents';

  declare id: number;
  declare title: string;
  declare title_for_teachers: string | null;
  declare level_category_id: number;

  declare category?: LevelCategory;
  declare courses?: Course[];

  static override relationMappings = (): RelationMappings => ({
    category: {
      relation: Model.BelongsToOneRelation,
      modelClass: LevelCategory,
      join: { from: 'level_contents.level_category_id', to: 'level_categories.id' },
    },
    courses: {
      relation: Model.HasManyRelation,
      modelClass: Course,
      join: { from: 'level_contents.id', to: 'courses.level_content_id' },
      modify: (query) => query.orderBy(['courses.position', 'courses.id']),
    },
  });

  override $afterFind(context: QueryContext): void {
    super.$afterFind(context);
    this.courses?.sort(byPositionThenId);
  }
}
