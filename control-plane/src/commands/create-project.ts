import type { Knex } from 'knex';
import { HttpError } from '../errors.ts';
import { asTakenError, quotaMessage, refused } from '../queries/project-request-errors.ts';
import { Project } from '../models/Project.ts';
import { projectRequestProblems, requestedProjectCount } from '../queries/projects.ts';
import type { ProjectRequestData } from '@devplein/contract/validation/projectRequest';
import { replaceProjectMembers } from './replace-project-members.ts';
import type { ProjectColumns } from './update-project.ts';

/**
 * POST /api/user/project: stores a request (awaiting approval) with its members in the order
 * given. `quota`: the creator's request limit (null: none, e.g. teachers); the creator's row is
 * locked so two requests at once cannot both pass it. Returns the new project's id.
 */
export async function createProject(
  knex: Knex,
  creatorId: number,
  input: ProjectRequestData,
  columns: ProjectColumns,
  memberIds: number[],
  quota: number | null,
): Promise<number> {
  try {
    return await knex.transaction(async (trx) => {
      if (quota !== null) {
        await trx('users').where('id', creatorId).forUpdate().first('id');
        const count = await requestedProjectCount(trx, creatorId);
        if (count >= quota) {
          const message = quotaMessage(quota);
          throw new HttpError(422, message, { errors: { project: [message] } });
        }
      }
      const problems = await projectRequestProblems(trx, input, memberIds, null);
      if (Object.keys(problems).length > 0) throw refused(problems);
      const inserted = await Project.query(trx).insert({ ...columns, validated: null, created_by: creatorId });
      const id = Number(inserted.id);
      await replaceProjectMembers(trx, id, memberIds);
      return id;
    });
  } catch (error) {
    throw asTakenError(error);
  }
}
