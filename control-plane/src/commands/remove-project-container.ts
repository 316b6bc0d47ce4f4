import { callAgent } from '../agent/agent-failure.ts';
import { mayHaveContainer } from '../queries/projects.ts';
import type { ContainerCommandDeps } from './container-deps.ts';

/**
 * Before a project row is deleted: its container goes first. The agent not answering → 503 and
 * the caller keeps the project (nothing is deleted because the agent was down). A project that
 * can have no container skips the agent.
 */
export async function removeProjectContainer(
  deps: Pick<ContainerCommandDeps, 'knex' | 'agents'>,
  project: { id: number; host: string | null; validated: boolean | null },
): Promise<boolean> {
  if (!(await mayHaveContainer(deps.knex, project))) return false;
  const { removed } = await callAgent(() => deps.agents.forHost(project.host).containers.removeContainer({ projectId: project.id }));
  return removed;
}
