import { Model, type RelationMappings } from 'objection';
import { Project } from './Project.ts';

/**
 * The latest screenshot of a project's site (one row per project). `png` is a Buffer on both
 * drivers; a failed capture keeps the previous png and records `last_error`.
 */
export class Thumbnail extends Model {
  static override tableName = 'thumbnails';

  declare id: number;
  declare project_id: number;
  declare png: Buffer | null;
  declare etag: string | null;
  declare captured_at: Date | null;
  declare last_error: string | null;
  declare last_attempt_at: Date | null;

  declare project?: Project;

  static override relationMappings = (): RelationMappings => ({
    project: {
      relation: Model.BelongsToOneRelation,
      modelClass: Project,
      join: { from: 'thumbnails.project_id', to: 'projects.id' },
    },
  });
}
