import { Model, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Project } from './Project.ts';

/** An image a project can be created from (the "docker" option of the request form). */
export class DockerImage extends AppModel {
  static override tableName = 'docker_images';

  declare id: number;
  declare name: string;
  declare image: string;
  /** Whether containers of this image accept SSH logins. */
  declare ssh: boolean;
  /** Whether this is a WordPress image (offers the WordPress password reset). */
  declare wordpress: boolean;
  /** Linux capabilities its containers get back after dropping all (migration 0010). */
  declare capabilities: string[];
  /** Git deploys (migration 0017): the web root (null: not offered), after-update command, kept paths, build step. */
  declare deploy_web_root: string | null;
  declare deploy_after_update: string | null;
  declare deploy_keep_paths: string[];
  declare deploy_build_command: string | null;
  declare deploy_build_output: string | null;

  declare projects?: Project[];

  static override relationMappings = (): RelationMappings => ({
    projects: {
      relation: Model.HasManyRelation,
      modelClass: Project,
      join: { from: 'docker_images.id', to: 'projects.docker_image_id' },
    },
  });
}
