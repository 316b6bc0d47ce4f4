import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Level } from './Level.ts';
import { LevelContent } from './LevelContent.ts';

/** A strand of the curriculum (e.g. Front-end) with `number` levels, shown as tiles 1..number. */
export class LevelCategory extends AppModel {
  static override tableName = 'level_categories';

  declare id: number;
  declare title: string;
  declare number: number;
  declare icons: boolean;

  declare contents?: LevelContent[];
  declare levels?: Level[];

  static override relationMappings = (): RelationMappings => ({
    contents: {
      relation: Model.HasManyRelation,
      modelClass: LevelContent,
      join: { from: 'level_categories.id', to: 'level_contents.level_category_id' },
    },
    levels: {
      relation: Model.HasManyRelation,
      modelClass: Level,
      join: { from: 'level_categories.id', to: 'levels.level_category_id' },
    },
  });
}
