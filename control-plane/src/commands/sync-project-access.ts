import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { SSH_LABEL, type ContainerView } from '../agent/container-views.ts';
import { type DockerProjectRow, loadDockerProject, sshKeysOf } from '../queries/projects.ts';
import { isStillPending } from '../queries/host-access.ts';
import { HostAccessReport, type NotDoneStep } from './host-access-report.ts';
import type { AppLocks } from '../app-context.ts';
import { recordPendingAccess, settlePendingAccessWithAudit } from './pending-host-access.ts';

export interface HostAccessDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link'>;
  logger: Logger;
  /** `access`: one run at a time per user and per project (the retry job and a request may meet). */
  locks: Pick<AppLocks, 'access'>;
}

/** What a run of access changes came to, for the route's answer. */
export interface AccessOutcome {
  /** Everything is done on every dev server. */
  complete: boolean;
  /** Dutch: what is not done yet and why (retried by the job); null when complete. */
  notDone: string | null;
  /** The steps behind `notDone`. */
  steps: readonly NotDoneStep[];
}

export const COMPLETE: AccessOutcome = { complete: true, notDone: null, steps: [] };

/**
 * The SSH side of one project's container: its authorized_keys become the keys of the members
 * who may log in now (sshKeysOf), then the sessions of `endSessionsOf` end. The keys go first, so
 * a member who is ended cannot log in again in between. Steps that fail land in `report`.
 */
export async function syncContainerSsh(
  deps: Pick<HostAccessDeps, 'knex' | 'agents'>,
  report: HostAccessReport,
  project: Pick<DockerProjectRow, 'id' | 'name' | 'host' | 'users'>,
  container: ContainerView,
  endSessionsOf: readonly number[],
): Promise<void> {
  if (container.labels[SSH_LABEL] !== 'true') return;
  const link = deps.agents.link(project.host);
  const keys = await sshKeysOf(deps.knex, project.users.map((user) => user.id));
  const written = await report.step(link.name, `SSH keys bijwerken in ${project.name}`, () => link.client.ssh.setAuthorizedKeys(project.id, keys));
  if (written === undefined) return;
  report.add(link.name, 'ssh_keys_synced', project.name);
  if (endSessionsOf.length === 0) return;
  const ended = await report.step(link.name, `SSH-sessies beëindigen in ${project.name}`, () => link.client.ssh.endSshSessions(project.id, [...endSessionsOf]));
  if (ended) report.add(link.name, 'ssh_sessions_ended', { project: project.name, ended: ended.ended + ended.endedUnattributed, kept: ended.kept });
}

/**
 * After a project's members changed (a student or an admin edited them, or a member's account
 * went): its container gets the keys of the members who may log in now, and the sessions of
 * the members who left end. Records the intent first and clears it when done; what a dev server
 * did not do is retried by the job. The caller knows whether the project may have a container
 * (a student's edit puts an approved project back to awaiting approval, its container stays):
 * call this only then, a project that never had one needs no agent.
 */
export async function syncProjectAccess(
  deps: HostAccessDeps,
  projectId: number,
  intent: { reason: string; endSessionsOf: readonly number[]; actorId: number | null; retry?: boolean; pendingId?: number },
): Promise<AccessOutcome> {
  return deps.locks.access.run(`project:${projectId}`, async () => {
    // The retry job's intent may have been carried out by the request whose run it waited for.
    if (intent.pendingId !== undefined && !(await isStillPending(deps.knex, intent.pendingId))) return COMPLETE;
    const project = await loadDockerProject(deps.knex, projectId);
    if (!project) return COMPLETE;
    const pending = await recordPendingAccess(deps.knex, { projectId }, { reason: intent.reason, endSessionsOf: intent.endSessionsOf });
    const report = new HostAccessReport(deps.logger);
    const link = deps.agents.link(project.host);
    const [container] = (await report.step(link.name, `SSH-toegang van ${project.name} bijwerken`, () => link.client.containers.listContainers({ projectIds: [project.id] }))) ?? [];
    if (container) await syncContainerSsh(deps, report, project, container, pending.end_sessions_of);
    const notDone = report.message();
    await settlePendingAccessWithAudit(
      deps.knex,
      pending,
      notDone,
      report.didAnything
        ? {
            actorId: intent.actorId,
            action: 'project.access',
            subjectType: 'project',
            subjectId: project.id,
            after: { reason: intent.retry ? `retry: ${intent.reason}` : intent.reason, members: project.users.map((user) => user.id), ended_sessions_of: pending.end_sessions_of, ...report.toAudit() },
          }
        : null,
    );
    return { complete: notDone === null, notDone, steps: report.notDone };
  });
}
