import type { Knex } from 'knex';
import type { HttpSession } from './http-session.ts';

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

/**
 * A student's project request through the real route (POST /api/user/project), as the request
 * form sends it: visible, no other members, no end date; resolves with the new project's id and
 * throws with the answer when it is not 201.
 */
export async function requestProject(session: HttpSession, input: { name: string; domain: string; imageId: number; description: string }): Promise<number> {
  const answer = await session.json<{ id: number }>('POST', '/api/user/project', {
    name: input.name,
    domain: input.domain,
    docker_id: input.imageId,
    description: input.description,
    visible: '1',
    users: [],
    end_date: null,
    repro: null,
  });
  if (answer.status !== 201) throw new Error(`requesting ${input.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id;
}
