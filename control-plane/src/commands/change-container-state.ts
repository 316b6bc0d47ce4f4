import type { ContainerActionName, ContainerView } from '../agent/container-views.ts';
import { callAgent } from '../agent/agent-failure.ts';
import type { DockerProjectRow } from '../queries/projects.ts';
import { ACTION_BUSY } from '../lib/container-states.ts';
import type { ContainerCommandDeps } from './container-deps.ts';

/**
 * PUT /api/user/dockers/{id}?action=: marks the card busy first (realtime), then asks the
 * project's dev server to start/stop/… the container. Returns the container after the action.
 */
export async function changeContainerState(deps: ContainerCommandDeps, project: DockerProjectRow, action: ContainerActionName): Promise<ContainerView | null> {
  await deps.notices.send(project.name, ACTION_BUSY);
  return callAgent(() => deps.agents.forHost(project.host).containers.changeContainerState({ projectId: project.id }, action));
}
