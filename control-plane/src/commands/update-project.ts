import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { asTakenError, refused } from '../lib/project-request-errors.ts';
import { Project } from '../models/Project.ts';
import type { ProjectRow } from '../presenters/present-project.ts';
import { auditSnapshot, loadProject, projectRequestProblems } from '../queries/projects.ts';
import type { ProjectRequestData } from '@devplein/contract/validation/projectRequest';
import { replaceProjectMembers } from './replace-project-members.ts';

/** A project's own columns as the request form sets them. */
export interface ProjectColumns {
  name: string;
  description: string;
  domain: string;
  host: string;
  visible: boolean;
  repro: string | null;
  /** Absent: unchanged (a form that does not send a branch keeps the stored one). */
  deploy_branch?: string | null;
  end_date: string | null;
  docker_image_id: number;
}

/**
 * PUT /api/user/project/{id}: the request's new columns, decision and members; `auditActorId`
 * (an admin's edit) records the change in the audit trail.
 */
export async function updateProject(
  knex: Knex,
  before: ProjectRow,
  input: ProjectRequestData,
  changes: ProjectColumns & { validated: boolean | null },
  memberIds: number[],
  auditActorId: number | null,
): Promise<void> {
  const id = before.id;
  try {
    await knex.transaction(async (trx) => {
      const problems = await projectRequestProblems(trx, input, memberIds, id);
      if (Object.keys(problems).length > 0) throw refused(problems);
      // updated_at is set by Project.$beforeUpdate.
      await Project.query(trx).findById(id).patch(changes);
      await replaceProjectMembers(trx, id, memberIds);
      if (auditActorId !== null) {
        const after = await loadProject(trx, id);
        await recordAudit(trx, {
          actorId: auditActorId,
          action: 'project.update',
          subjectType: 'project',
          subjectId: id,
          before: auditSnapshot(before),
          after: after ? auditSnapshot(after) : null,
        });
      }
    });
  } catch (error) {
    throw asTakenError(error);
  }
}
