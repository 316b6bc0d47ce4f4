import type { DockerImageOption } from '@devplein/contract/dockers';
import type { ImageOptionRow } from '../queries/docker-images.ts';

/** An image option as the admin images page shows it. */
export type ImageOptionJson = DockerImageOption;

export const presentImageOption = (row: ImageOptionRow): ImageOptionJson => ({
  id: Number(row.id),
  name: row.name,
  image: row.image,
  ssh: Boolean(row.ssh),
  wordpress: Boolean(row.wordpress),
  capabilities: [...row.capabilities],
  deploy: {
    webRoot: row.deploy_web_root,
    afterUpdate: row.deploy_after_update,
    keepPaths: [...row.deploy_keep_paths],
    buildCommand: row.deploy_build_command,
    buildOutput: row.deploy_build_output,
  },
  projects: Number(row.projects),
});
