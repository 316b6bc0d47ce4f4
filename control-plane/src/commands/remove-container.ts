import { recordAudit } from '../audit/record-audit.ts';
import { HttpError } from '../errors.ts';
import { callAgent } from '../agent/agent-failure.ts';
import { linkOfContainer, type AdminDockerDeps } from '../queries/admin-dockers.ts';

/** Removes any container (its project, if any, stays: 'Nog niet gecreëerd'), recorded in the audit trail. */
export async function removeContainer(deps: AdminDockerDeps, actorId: number, name: string): Promise<{ removed: boolean }> {
  const link = await linkOfContainer(deps, name).catch((error: unknown) => {
    // Removing what is not there (any more) is no error: the answer says nothing was removed.
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  });
  const result = link ? await callAgent(() => link.client.containers.removeContainer({ name })) : { removed: false };
  await recordAudit(deps.knex, { actorId, action: 'container.delete', subjectType: 'container', subjectId: name, after: { removed: result.removed } });
  return result;
}
