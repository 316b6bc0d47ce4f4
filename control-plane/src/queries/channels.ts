import type { Knex } from 'knex';

/** Members of the project whose container carries this name; null when there is no such project. */
export async function projectMemberIds(knex: Knex, containerName: string): Promise<number[] | null> {
  const project = await knex('projects').select('id').where({ name: containerName }).first<{ id: number } | undefined>();
  if (!project) return null;
  const rows = await knex('project_user').select('user_id').where({ project_id: project.id });
  return (rows as { user_id: number }[]).map((row) => row.user_id);
}
