import type { AuditAction } from '@devplein/contract/audit';
import { recordAudit } from '../audit/record-audit.ts';
import type { CurrentUser } from '../queries/current-user.ts';
import { isAdmin } from '../policies/roles.ts';
import type { DockerProjectRow } from '../queries/projects.ts';
import type { ContainerCommandDeps } from './container-deps.ts';

/** An admin acting on a project's container they are not a member of is an admin write: audited. */
export async function recordContainerAct(
  deps: Pick<ContainerCommandDeps, 'knex'>,
  user: CurrentUser,
  project: DockerProjectRow,
  action: AuditAction,
  after: Record<string, unknown>,
): Promise<void> {
  if (!isAdmin(user) || project.users.some((member) => member.id === user.id)) return;
  await recordAudit(deps.knex, { actorId: user.id, action, subjectType: 'project', subjectId: project.id, after: { container: project.name, ...after } });
}
