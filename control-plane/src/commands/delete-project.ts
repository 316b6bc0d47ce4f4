import type { Knex } from 'knex';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { Project } from '../models/Project.ts';
import { auditSnapshot, loadProject } from '../queries/projects.ts';
import { removeProjectContainer } from './remove-project-container.ts';

/** How a deletion went: whether a container was removed, whether the row was still there. */
export interface DeleteProjectOutcome {
  containerRemoved: boolean;
  deleted: boolean;
}

/**
 * Deletes a project (both DELETE /api/admin/projects/{id} and DELETE /api/user/project/{id}).
 * The container goes first, outside any transaction: the agent not answering → 503 and the
 * project stays. Then the row (its members and thumbnail go with it by cascade); with `audit`
 * (an admin write) the project as it was inside the transaction goes into the audit trail.
 */
export async function deleteProject(
  deps: { knex: Knex; agents: AgentFleet },
  project: { id: number; host: string | null; validated: boolean | null },
  options: { actorId: number; audit: boolean },
): Promise<DeleteProjectOutcome> {
  const containerRemoved = await removeProjectContainer(deps, project);
  const deleted = await deps.knex.transaction(async (trx) => {
    if (!options.audit) {
      await Project.query(trx).deleteById(project.id);
      return true;
    }
    const before = await loadProject(trx, project.id);
    if (!before) return false;
    await Project.query(trx).deleteById(project.id);
    await recordAudit(trx, { actorId: options.actorId, action: 'project.delete', subjectType: 'project', subjectId: project.id, before: auditSnapshot(before) });
    return true;
  });
  return { containerRemoved, deleted };
}
