import type { ContainerView } from '../agent/container-views.ts';
import { HttpError } from '../errors.ts';
import { callAgent } from '../agent/agent-failure.ts';
import { sshKeysOf, type DockerProjectRow } from '../queries/projects.ts';
import type { ContainerCommandDeps } from './container-deps.ts';
import { syncAuthorizedKeys } from './sync-authorized-keys.ts';
import { offersGitDeploy } from '../policies/deploy-policy.ts';

export const NOT_APPROVED_MESSAGE = 'Dit project is nog niet goedgekeurd.';
export const NO_IMAGE_MESSAGE = 'Dit project heeft nog geen image. Vraag een docent er een te kiezen.';

type KeyLine = { publicKey: string; userId: number };

function sameKeys(a: readonly KeyLine[], b: readonly KeyLine[]): boolean {
  return a.length === b.length && a.every((key, index) => key.publicKey === b[index]?.publicKey && key.userId === b[index]?.userId);
}

/**
 * A new running container of a project whose repository can be deployed gets its first deploy
 * (trigger 'create'): recorded and queued now, run by the queue after the answer. A failure to
 * queue is logged; the container stands.
 */
async function queueFirstDeploy(deps: ContainerCommandDeps, project: DockerProjectRow, container: ContainerView | null, requestedBy: number | null): Promise<void> {
  if (!deps.deploys || container?.state !== 'running' || project.validated !== true || !offersGitDeploy(project)) return;
  try {
    await deps.deploys.request({ projectId: project.id, trigger: 'create', branch: project.branch, commit: null, requestedBy }, { projectName: project.name });
  } catch (error) {
    deps.logger.error({ err: error, projectId: project.id }, 'first deploy not queued');
  }
}

/**
 * POST /api/user/dockers: creates the project's container (idempotent at the agent) from its
 * image option, limits left to the agent's defaults. SSH images get the members' keys with the
 * create (written before the first start); they are set afterwards only when the agent did not
 * write them (an existing container, an agent before contract 1.4.0) or they changed meanwhile.
 * Returns the container as the agent reports it (null: none).
 */
export async function createProjectContainer(deps: ContainerCommandDeps, project: DockerProjectRow, options: { requestedBy?: number | null } = {}): Promise<ContainerView | null> {
  if (project.validated !== true) throw new HttpError(409, NOT_APPROVED_MESSAGE);
  if (!project.image) throw new HttpError(409, NO_IMAGE_MESSAGE);
  const memberIds = project.users.map((user) => user.id);
  const keys = project.ssh ? await sshKeysOf(deps.knex, memberIds) : [];
  const { container, created, authorizedKeysWritten } = await callAgent(() =>
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
      authorizedKeys: keys,
    }),
  );
  if (project.ssh) {
    // Read again: a key change during the create may have found no container to sync yet.
    const written = authorizedKeysWritten && (await sshKeysOf(deps.knex, memberIds).then((now) => sameKeys(keys, now), () => false));
    if (!written) await syncAuthorizedKeys(deps, project);
  }
  if (created) await queueFirstDeploy(deps, project, container, options.requestedBy ?? null);
  return container;
}
