import { Model, type QueryContext, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { CourseFile } from './CourseFile.ts';
import { CourseText } from './CourseText.ts';
import { LevelContent } from './LevelContent.ts';
import { byPositionThenId } from './ordering.ts';

/** A course inside level content: accordion panels of texts, plus downloadable files. */
export class Course extends AppModel {
  static override tableName = 'courses';

  declare id: number;
  declare level_content_id: number;
  declare title: string;
  declare position: number;

  declare content?: LevelContent;
  declare texts?: CourseText[];
  declare files?: CourseFile[];

  static override relationMappings = (): RelationMappings => ({
    content: {
      relation: Model.BelongsToOneRelation,
      modelClass: LevelContent,
      join: { from: 'courses.level_content_id', to: 'level_contents.id' },
    },
    texts: {
      relation: Model.HasManyRelation,
      modelClass: CourseText,
      join: { from: 'courses.id', to: 'course_texts.course_id' },
      modify: (query) => query.orderBy(['course_texts.position', 'course_texts.id']),
    },
    files: {
      relation: Model.HasManyRelation,
      modelClass: CourseFile,
      join: { from: 'courses.id', to: 'course_files.course_id' },
      modify: (query) => query.orderBy(['course_files.position', 'course_files.id']),
    },
  });

  override $afterFind(context: QueryContext): void {
    super.$afterFind(context);
    this.texts?.sort(byPositionThenId);
    this.files?.sort(byPositionThenId);
  }
}
