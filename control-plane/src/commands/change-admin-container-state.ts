import type { ContainerActionName, ContainerView } from '../agent/container-views.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { forbidden, notFound } from '../errors.ts';
import { callAgent } from '../agent/agent-failure.ts';
import { mayRunProjectContainer, notRunnableMessage } from '../policies/container-policy.ts';
import { CONTAINER_NOT_FOUND, projectOfName, searchContainer, type AdminDockerDeps, type PlacedContainer } from '../queries/admin-dockers.ts';

/** An admin's lifecycle action on any container, recorded in the audit trail. Returns the container after it and its dev server. */
export async function changeAdminContainerState(deps: AdminDockerDeps, actorId: number, name: string, action: ContainerActionName): Promise<PlacedContainer> {
  const project = await projectOfName(deps, name);
  // Admins too: a project that is not approved cannot run (approve it first).
  if (project && !mayRunProjectContainer(project, action)) throw forbidden(notRunnableMessage(project.validated));
  const link = project ? deps.agents.link(project.host) : (await searchContainer(deps.agents.links, name)).link;
  const container: ContainerView | null = await callAgent(() => link.client.containers.changeContainerState({ name }, action));
  if (!container) throw notFound(CONTAINER_NOT_FOUND);
  await recordAudit(deps.knex, {
    actorId,
    action: `container.${action}`,
    subjectType: 'container',
    subjectId: name,
    after: { state: container.state, status: container.status },
  });
  return { container, host: link.name };
}
