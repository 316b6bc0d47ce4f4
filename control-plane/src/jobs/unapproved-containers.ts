import { scheduleJob } from '@devplein/server-kit/scheduled-job';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { toAgentError } from '../agent/agent-error.ts';
import { suspendProjectContainer, type SuspendTarget } from '../commands/suspend-project-container.ts';

/** Docker states of a container that serves its site (or can again on unpause). */
const RUNNING_STATES: ReadonlySet<string> = new Set(['running', 'paused', 'restarting']);

/**
 * Finds containers of projects that are not approved (rejected, or back to awaiting approval)
 * that still run, and suspends them. This is what makes "a project that is not approved cannot
 * run" hold when a dev server did not answer at the decision, or when a container was started
 * behind the control plane's back (by hand with docker, a host reboot). One ListContainers call
 * per dev server with the ids of its unapproved projects. Resolves with the projects suspended.
 */
export async function suspendUnapprovedContainers(deps: { knex: Knex; agents: AgentFleet; logger: Logger }): Promise<number[]> {
  const projects = await deps.knex('projects')
    .where((where) => void where.whereNull('validated').orWhere('validated', false))
    .select<SuspendTarget[]>('id', 'name', 'domain', 'host');
  const byHost = new Map<string, SuspendTarget[]>();
  for (const project of projects) {
    const host = deps.agents.link(project.host).name;
    const list = byHost.get(host) ?? [];
    list.push({ ...project, id: Number(project.id) });
    byHost.set(host, list);
  }
  const suspended: number[] = [];
  for (const [host, targets] of byHost) {
    let running: Set<number>;
    try {
      const containers = await deps.agents.link(host).client.containers.listContainers({ projectIds: targets.map((target) => target.id) });
      running = new Set(containers.filter((container) => RUNNING_STATES.has(container.state)).map((container) => container.projectId));
    } catch (error) {
      deps.logger.debug({ host, error: toAgentError(error).message }, 'unapproved containers not checked: the dev server does not answer');
      continue;
    }
    for (const target of targets.filter((each) => running.has(each.id))) {
      const validated = await deps.knex('projects').where('id', target.id).first<{ validated: boolean | null } | undefined>('validated');
      // Approved again in the meantime: it may run.
      if (!validated || validated.validated === true) continue;
      const outcome = await suspendProjectContainer(deps, target, { actorId: null, reason: validated.validated === false ? 'rejected' : 'awaiting' });
      if (outcome === 'done') suspended.push(target.id);
    }
  }
  if (suspended.length > 0) deps.logger.info({ projects: suspended }, 'containers of unapproved projects stopped by the reconcile');
  return suspended;
}

/** Runs the reconcile on a cron schedule (UNAPPROVED_RECONCILE_CRON); stop() ends it. */
export function startUnapprovedContainersJob(deps: { knex: Knex; agents: AgentFleet; logger: Logger }, cronExpression: string): { stop(): Promise<void> } {
  return scheduleJob({
    name: 'unapproved-containers',
    expression: cronExpression,
    setting: 'UNAPPROVED_RECONCILE_CRON',
    logger: deps.logger,
    run: () => suspendUnapprovedContainers(deps),
  });
}
