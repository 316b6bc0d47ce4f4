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
  projects: Number(row.projects),
});
