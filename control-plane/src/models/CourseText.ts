import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Course } from './Course.ts';

/** One text panel of a course; `body` is Markdown. */
export class CourseText extends AppModel {
  static override tableName = 'course_texts';

  declare id: number;
  declare course_id: number;
  declare title: string;
  declare body: string;
  declare position: number;

  declare course?: Course;

  static override relationMappings = (): RelationMappings => ({
    course: {
      relation: Model.BelongsToOneRelation,
      modelClass: Course,
      join: { from: 'course_texts.course_id', to: 'courses.id' },
    },
  });
}
