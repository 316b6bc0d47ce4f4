import { HttpError } from '../errors.ts';
import type { ContainerActionName } from '../agent/container-views.ts';
import { agentFailure } from '../agent/agent-failure.ts';
import { CONTAINER_NOT_FOUND, type AdminDockerDeps } from '../queries/admin-dockers.ts';
import { changeAdminContainerState } from './change-admin-container-state.ts';
import { removeContainer } from './remove-container.ts';
import type { BulkResult } from '@devplein/contract/dockers';

/** Runs one action on each container on its own; a failure is that container's result only. */
export async function runBulkContainerAction(deps: AdminDockerDeps, actorId: number, names: string[], action: ContainerActionName | 'delete'): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (const name of names) {
    try {
      if (action === 'delete') {
        const { removed } = await removeContainer(deps, actorId, name);
        results.push(removed ? { name, ok: true } : { name, ok: false, message: CONTAINER_NOT_FOUND });
      } else {
        const { container } = await changeAdminContainerState(deps, actorId, name, action);
        results.push({ name, ok: true, State: container.state, Status: container.status });
      }
    } catch (error) {
      const mapped = agentFailure(error);
      const message = mapped instanceof HttpError ? mapped.message : 'Er ging iets mis met deze container.';
      results.push({ name, ok: false, message });
    }
  }
  return results;
}
