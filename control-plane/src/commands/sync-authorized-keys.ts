import { sshKeysOf, type DockerProjectRow } from '../queries/projects.ts';
import type { ContainerCommandDeps } from './container-deps.ts';

/**
 * Puts the members' SSH keys (their union) into the project's container. Failures are logged:
 * a container without keys locks SSH, it does not break the project.
 */
export async function syncAuthorizedKeys(deps: Pick<ContainerCommandDeps, 'knex' | 'agents' | 'logger'>, project: Pick<DockerProjectRow, 'id' | 'host' | 'users'>): Promise<void> {
  try {
    const keys = await sshKeysOf(deps.knex, project.users.map((user) => user.id));
    await deps.agents.forHost(project.host).ssh.setAuthorizedKeys(project.id, keys);
  } catch (error) {
    deps.logger.warn({ err: error, projectId: project.id }, 'setting authorized keys failed');
  }
}
