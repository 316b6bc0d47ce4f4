import type { Knex } from 'knex';

/** The members in the order given (their position), replacing the ones before. */
export async function replaceProjectMembers(db: Knex.Transaction, projectId: number, memberIds: number[]): Promise<void> {
  await db('project_user').where('project_id', projectId).delete();
  if (memberIds.length > 0) {
    await db('project_user').insert(memberIds.map((userId, position) => ({ project_id: projectId, user_id: userId, position })));
  }
}
