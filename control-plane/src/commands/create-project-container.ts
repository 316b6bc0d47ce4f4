import type { ContainerView } from '../agent/container-views.ts';
import { HttpError } from '../errors.ts';
import { callAgent } from '../lib/agent-failure.ts';
import type { DockerProjectRow } from '../queries/projects.ts';
import type { ContainerCommandDeps } from './container-deps.ts';
import { syncAuthorizedKeys } from './sync-authorized-keys.ts';

export const NOT_APPROVED_MESSAGE = 'Dit project is nog niet goedgekeurd.';
export const NO_IMAGE_MESSAGE = 'Dit project heeft nog geen image. Vraag een docent er een te kiezen.';

/**
 * POST /api/user/dockers: creates the project's container (idempotent at the agent) from its
 * image option, limits left to the agent's defaults; then the members' SSH keys for ssh images.
 * Returns the container as the agent reports it (null: none).
 */
export async function createProjectContainer(deps: ContainerCommandDeps, project: DockerProjectRow): Promise<ContainerView | null> {
  if (project.validated !== true) throw new HttpError(409, NOT_APPROVED_MESSAGE);
  if (!project.image) throw new HttpError(409, NO_IMAGE_MESSAGE);
  const memberIds = project.users.map((user) => user.id);
  const { container } = await callAgent(() =>
    deps.agents.forHost(project.host).containers.createContainer({
      projectId: project.id,
      name: project.name,
      domain: project.domain,
      image: project.image as string,
      ownerUserId: memberIds[0] ?? 0,
      memberUserIds: memberIds,
      ssh: project.ssh,
      wordpress: project.wordpress,
      capabilities: project.capabilities,
    }),
  );
  if (project.ssh) await syncAuthorizedKeys(deps, project);
  return container;
}
