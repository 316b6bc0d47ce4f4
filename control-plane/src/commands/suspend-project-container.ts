import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { toAgentError } from '../agent/agent-error.ts';
import { recordAudit } from '../audit/record-audit.ts';

/** A project whose container has to stop running. */
export interface SuspendTarget {
  id: number;
  name: string;
  domain: string;
  host: string | null;
}

/** How a suspension went: done, or the dev server did not answer (the reconcile catches up). */
export type SuspendOutcome = 'done' | 'unreachable';

/**
 * A project that is no longer approved cannot run: its container is stopped (never removed: the
 * student's files stay) and its route taken out of the reverse proxy, on the project's own dev
 * server. A project without a container is nothing to stop. When the dev server does not answer,
 * nothing is undone elsewhere: the project's decision stands and the unapproved-containers
 * reconcile (jobs/unapproved-containers.ts) stops it once the server answers. `reason` goes into
 * the audit entry (container.suspend) together with what was done.
 */
export async function suspendProjectContainer(
  deps: { knex: Knex; agents: AgentFleet; logger: Logger },
  project: SuspendTarget,
  audit: { actorId: number | null; reason: 'rejected' | 'awaiting' },
): Promise<SuspendOutcome> {
  const client = deps.agents.forHost(project.host);
  let state: string | null = null;
  try {
    const container = await client.containers.changeContainerState({ projectId: project.id }, 'stop');
    state = container?.state ?? null;
  } catch (error) {
    const agentError = toAgentError(error);
    if (agentError.unreachable) {
      deps.logger.warn({ projectId: project.id, error: agentError.message }, 'could not stop the container of an unapproved project yet');
      return 'unreachable';
    }
    // No container (NOT_FOUND) or one that cannot stop now: the route still has to go.
    if (agentError.code !== 'NOT_FOUND') deps.logger.warn({ projectId: project.id, error: agentError.message }, 'stopping the container of an unapproved project failed');
  }
  let routeRemoved = false;
  try {
    routeRemoved = (await client.proxy.removeRoute(project.domain)).removed;
  } catch (error) {
    const agentError = toAgentError(error);
    deps.logger.warn({ projectId: project.id, domain: project.domain, error: agentError.message }, 'removing the route of an unapproved project failed');
    if (agentError.unreachable) return 'unreachable';
  }
  if (state !== null || routeRemoved) {
    await recordAudit(deps.knex, {
      actorId: audit.actorId,
      action: 'container.suspend',
      subjectType: 'project',
      subjectId: project.id,
      after: { container: project.name, reason: audit.reason, state, route_removed: routeRemoved },
    });
  }
  deps.logger.info({ projectId: project.id, state, routeRemoved, reason: audit.reason }, 'container of an unapproved project suspended');
  return 'done';
}
