import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Course } from './Course.ts';

/** A downloadable file of a course; the bytes live in storage under `storage_key`. */
export class CourseFile extends AppModel {
  static override tableName = 'course_files';

  declare id: number;
  declare course_id: number;
  declare title: string;
  declare type: string;
  declare filename: string;
  declare storage_key: string;
  declare size: number;
  declare position: number;

  declare course?: Course;

  static override relationMappings = (): RelationMappings => ({
    course: {
      relation: Model.BelongsToOneRelation,
      modelClass: Course,
      join: { from: 'course_files.course_id', to: 'courses.id' },
    },
  });
}
