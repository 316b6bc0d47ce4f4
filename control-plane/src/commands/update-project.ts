import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { asTakenError, refused } from '../queries/project-request-errors.ts';
import { Project } from '../models/Project.ts';
import type { ProjectRow } from '../queries/projects.ts';
import { auditSnapshot, loadProject, projectRequestProblems } from '../queries/projects.ts';
import type { ProjectRequestData } from '@devplein/contract/validation/projectRequest';
import { replaceProjectMembers } from './replace-project-members.ts';
import { dropTokenOfMovedRepository, projectMembersLeft } from './deploy-credentials.ts';
import type { SecretBox } from '../crypto/secret-box.ts';

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
 * (an admin's edit) records the change in the audit trail. In the same transaction (issue 35,
 * `trust.actorId` whoever edits): a stored git token entered for another address than the new
 * `repro` is dropped, and members who leave take their token with them and renew the webhook
 * secret they could read.
 */
export async function updateProject(
  knex: Knex,
  before: ProjectRow,
  input: ProjectRequestData,
  changes: ProjectColumns & { validated: boolean | null },
  memberIds: number[],
  auditActorId: number | null,
  trust: { actorId: number; secrets: SecretBox },
): Promise<void> {
  const id = before.id;
  try {
    await knex.transaction(async (trx) => {
      const problems = await projectRequestProblems(trx, input, memberIds, id);
      if (Object.keys(problems).length > 0) throw refused(problems);
      // updated_at is set by Project.$beforeUpdate.
      await Project.query(trx).findById(id).patch(changes);
      await replaceProjectMembers(trx, id, memberIds);
      await dropTokenOfMovedRepository(trx, id, changes.repro, trust.actorId);
      const left = before.users.map((member) => Number(member.id)).filter((memberId) => !memberIds.includes(memberId));
      await projectMembersLeft(trx, trust.secrets, id, left, trust.actorId);
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
