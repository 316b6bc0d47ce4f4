import { Model, type ModelOptions, type QueryContext, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { DockerImage } from './DockerImage.ts';
import { byPositionThenId } from './ordering.ts';
import { User } from './User.ts';

/**
 * A student's project ("docker request"): one container named `name`, served at `domain`.
 * `validated`: null = awaiting approval, true = approved, false = rejected.
 * `end_date` is a 'YYYY-MM-DD' string on both database drivers.
 */
export class Project extends AppModel {
  static override tableName = 'projects';

  declare id: number;
  declare name: string;
  declare description: string;
  declare domain: string;
  /** The dev server (agent link name) of its container; null is the first one. */
  declare host: string | null;
  declare visible: boolean;
  declare repro: string | null;
  declare end_date: string | null;
  declare docker_image_id: number | null;
  declare validated: boolean | null;
  declare created_by: number | null;
  declare created_at: Date;
  declare updated_at: Date;

  /** Position of the user among the members: present when loaded through User.projects. */
  declare position?: number;

  /** Members, in the order they were entered (project_user.position, then user id). */
  declare users?: User[];
  declare dockerImage?: DockerImage | null;
  declare creator?: User | null;

  static override relationMappings = (): RelationMappings => ({
    users: {
      relation: Model.ManyToManyRelation,
      modelClass: User,
      join: {
        from: 'projects.id',
        through: { from: 'project_user.project_id', to: 'project_user.user_id', extra: ['position'] },
        to: 'users.id',
      },
    },
    dockerImage: {
      relation: Model.BelongsToOneRelation,
      modelClass: DockerImage,
      join: { from: 'projects.docker_image_id', to: 'docker_images.id' },
    },
    creator: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'projects.created_by', to: 'users.id' },
    },
  });

  /**
   * Members come back in their entered order whichever way they were loaded: ordering inside
   * the relation would break withGraphJoined (the through table is not visible there), so the
   * loaded list is sorted here by the `position` extra (then user id).
   */
  override $afterFind(context: QueryContext): void {
    super.$afterFind(context);
    this.users?.sort(byPositionThenId);
  }

  override $beforeInsert(context: QueryContext): void {
    super.$beforeInsert(context);
    if (this.domain !== undefined) this.domain = this.domain.toLowerCase();
  }

  override $beforeUpdate(options: ModelOptions, context: QueryContext): void {
    super.$beforeUpdate(options, context);
    if (this.domain !== undefined) this.domain = this.domain.toLowerCase();
    this.updated_at = new Date();
  }
}
