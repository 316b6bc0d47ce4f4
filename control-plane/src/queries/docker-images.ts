import type { Knex } from 'knex';
import { DockerImage } from '../models/DockerImage.ts';

/** An image option with how many projects use it (the admin images page). */
export interface ImageOptionRow {
  id: number;
  name: string;
  image: string;
  ssh: boolean;
  wordpress: boolean;
  capabilities: string[];
  deploy_web_root: string | null;
  deploy_after_update: string | null;
  deploy_keep_paths: string[];
  deploy_build_command: string | null;
  deploy_build_output: string | null;
  projects: number | string;
}

/** The deploy columns of docker_images, in the order the admin answer shows them. */
export const DEPLOY_COLUMNS = ['deploy_web_root', 'deploy_after_update', 'deploy_keep_paths', 'deploy_build_command', 'deploy_build_output'] as const;

/** The image options with their project counts, by id; `id`: only that one. */
export function listImageOptions(knex: Knex, id?: number): Promise<ImageOptionRow[]> {
  return knex('docker_images as di')
    .select<ImageOptionRow[]>(
      'di.id',
      'di.name',
      'di.image',
      'di.ssh',
      'di.wordpress',
      'di.capabilities',
      ...DEPLOY_COLUMNS.map((column) => `di.${column}`),
      knex.raw('(select count(*) from projects p where p.docker_image_id = di.id)::int as projects'),
    )
    .modify((query) => void (id !== undefined && query.where('di.id', id)))
    .orderBy('di.id');
}

/** The image options of the request form (GET /api/dockers): id and name, by id. */
export async function listImageOptionNames(knex: Knex): Promise<Array<{ id: number; name: string }>> {
  const rows = await DockerImage.query(knex).select('id', 'name').orderBy('id');
  return rows.map((row) => ({ id: row.id, name: row.name }));
}
