import type { Knex } from 'knex';

/**
 * A visible, approved project on the seeded 'Statische site' image option, with `ownerEmail` as
 * its only member: the student site of the tests that run a real container behind Caddy.
 */
export async function insertStaticSiteProject(knex: Knex, input: { name: string; domain: string; description: string; ownerEmail: string }): Promise<number> {
  const [imageRow] = await knex('docker_images').where({ name: 'Statische site' }).select<{ id: number }[]>('id');
  const [project] = await knex('projects')
    .insert({ name: input.name, domain: input.domain, description: input.description, visible: true, validated: true, docker_image_id: imageRow?.id })
    .returning<{ id: number }[]>('id');
  const projectId = Number(project?.id);
  const owner = await knex('users').where({ email: input.ownerEmail }).first<{ id: number }>('id');
  await knex('project_user').insert({ project_id: projectId, user_id: owner.id, position: 0 });
  return projectId;
}
