import type { AgentLink } from '../agent/agent-fleet.ts';
import type { ContainerView } from '../agent/container-views.ts';
import { type DockerProjectRow, loadMemberDockerProjects } from '../queries/projects.ts';
import { mayHaveHostAccess } from '../policies/host-access-policy.ts';
import { accessFlagsOf } from '../queries/users.ts';
import { isStillPending } from '../queries/host-access.ts';
import { HostAccessReport } from './host-access-report.ts';
import { recordPendingAccess, settlePendingAccessWithAudit } from './pending-host-access.ts';
import { createPeerOnFreeAddress } from './create-vpn-peer.ts';
import { type AccessOutcome, COMPLETE, type HostAccessDeps, syncContainerSsh } from './sync-project-access.ts';

export interface ApplyUserAccessOptions {
  actorId: number | null;
  /** What asked for it, e.g. 'user.disable', 'user.developer' (kept on the pending intent). */
  reason: string;
  /** A retry of a pending intent (the retry job): the audit says `retry: {reason}`. */
  retry?: boolean;
  /** The retry job's intent: nothing is done when it is gone by the time this run may start. */
  pendingId?: number;
  /**
   * Part of a revocation (disable, developer flag cleared): also stop the containers of projects
   * in which the user is the only member. Stopped containers are never started again here.
   */
  stopSoleContainers?: boolean;
}

/** Rows placed on dev servers (their `host`), grouped per server: one agent call each. */
function byDevServer<Row extends { host: string | null }, Item>(deps: Pick<HostAccessDeps, 'agents'>, rows: readonly Row[], item: (row: Row) => Item): Array<{ link: AgentLink; items: Item[] }> {
  const groups = new Map<string, { link: AgentLink; items: Item[] }>();
  for (const row of rows) {
    const link = deps.agents.link(row.host);
    const group = groups.get(link.name) ?? { link, items: [] };
    group.items.push(item(row));
    groups.set(link.name, group);
  }
  return [...groups.values()];
}

/** Docker states in which a container still runs something. */
const RUNNING_STATES: ReadonlySet<string> = new Set(['running', 'paused', 'restarting']);

async function lockOrUnlockDatabases(deps: HostAccessDeps, report: HostAccessReport, userId: number, entitled: boolean): Promise<void> {
  const rows = await deps.knex('databases').where({ user_id: userId }).orderBy('id').select<Array<{ db_user: string; host: string | null }>>('db_user', 'host');
  await Promise.all(
    byDevServer(deps, rows, (row) => row.db_user).map(async ({ link, items: users }) => {
      const databases = link.client.databases;
      if (entitled) {
        const unlocked = await report.step(link.name, 'databases ontgrendelen', () => databases.unlockAccounts(users));
        if (unlocked) report.note(link.name, 'databases_unlocked', unlocked.filter((account) => account.found).map((account) => account.user));
        return;
      }
      const locked = await report.step(link.name, 'databases vergrendelen', () => databases.lockAccounts(users));
      if (!locked) return;
      report.note(link.name, 'databases_locked', locked.filter((account) => account.found).map((account) => account.user));
      report.note(link.name, 'connections_killed', locked.reduce((sum, account) => sum + account.killedConnections, 0));
    }),
  );
}

interface StoredPeer {
  id: number;
  identifier: string;
  address: string;
  public_key: string;
  host: string | null;
}

/**
 * The VPN peer goes (the tunnel stops passing traffic) or comes back with the same key and
 * address, so the student's .conf works again. When the address went to another student
 * meanwhile, the peer gets a free one and the row follows: the audit and the report say the
 * student must download the file again (nothing comes back silently different).
 */
async function removeOrRestorePeer(deps: HostAccessDeps, report: HostAccessReport, userId: number, entitled: boolean): Promise<void> {
  const peer = await deps.knex('vpn_configs').where({ user_id: userId }).first<StoredPeer | undefined>('id', 'identifier', 'address', 'public_key', 'host');
  if (!peer) return;
  const link = deps.agents.link(peer.host);
  const vpn = link.client.vpn;
  if (!entitled) {
    const removed = await report.step(link.name, 'VPN-verbinding verwijderen', () => vpn.removePeer(peer.public_key));
    if (removed) report.note(link.name, 'vpn_peer_removed', peer.address);
    return;
  }
  const restored = await report.step(link.name, 'VPN-verbinding terugzetten', () =>
    createPeerOnFreeAddress(deps, link, { publicKey: peer.public_key, identifier: peer.identifier, userId, address: peer.address }),
  );
  const address = restored?.peer?.address;
  if (!address) return;
  report.note(link.name, 'vpn_peer_restored', address);
  if (address !== peer.address) {
    await deps.knex('vpn_configs').where({ id: peer.id }).update({ address });
    report.note(link.name, 'vpn_address_changed', { from: peer.address, to: address, note: 'the student has to download the configuration again' });
    deps.logger.warn({ userId, from: peer.address, to: address }, 'restored VPN peer got a new address: its old one was given away');
  }
}

/** The containers of these projects per dev server (one ListContainers each); a server that does not answer is a not-done step. */
async function containersOf(deps: HostAccessDeps, report: HostAccessReport, projects: readonly DockerProjectRow[], what: string): Promise<Map<number, ContainerView>> {
  const containers = new Map<number, ContainerView>();
  await Promise.all(
    byDevServer(deps, projects, (project) => project.id).map(async ({ link, items: ids }) => {
      const listed = await report.step(link.name, what, () => link.client.containers.listContainers({ projectIds: ids }));
      for (const container of listed ?? []) containers.set(container.projectId, container);
    }),
  );
  return containers;
}

async function projectAccess(deps: HostAccessDeps, report: HostAccessReport, userId: number, entitled: boolean, stopSole: boolean): Promise<void> {
  const projects = await loadMemberDockerProjects(deps.knex, userId);
  if (projects.length === 0) return;
  const containers = await containersOf(deps, report, projects, entitled ? 'SSH-toegang teruggeven' : 'SSH-toegang intrekken');
  await Promise.all(
    projects.map(async (project) => {
      const container = containers.get(project.id);
      if (!container) return;
      await syncContainerSsh(deps, report, project, container, entitled ? [] : [userId]);
      const alone = project.users.length === 1 && project.users[0]?.id === userId;
      if (!stopSole || !alone || !RUNNING_STATES.has(container.state)) return;
      const link = deps.agents.link(project.host);
      const stopped = await report.step(link.name, `container ${project.name} stoppen`, () => link.client.containers.changeContainerState({ projectId: project.id }, 'stop'));
      if (stopped !== undefined) report.add(link.name, 'containers_stopped', project.name);
    }),
  );
}

/**
 * THE way a user's access on the dev servers is made to match their flags (mayHaveHostAccess):
 * disable, verify, the developer flag, the retry job and later an identity provider's group
 * mapping all call this. It computes what the user may have now and, on every dev server:
 * locks or unlocks their MySQL accounts (a lock ends open connections), removes or restores
 * their VPN peer (same key and address), rewrites the SSH keys of every container of their
 * projects with only the members who may log in, ends their SSH sessions there when they may
 * not, and — on a revocation that asks for it — stops the containers of projects where they are
 * the only member. It never starts a container and never brings back what was deleted.
 *
 * The intent is recorded before any agent call and cleared when all is done; a dev server that
 * does not answer (or an agent too old for a step) leaves it for the retry job, and the answer
 * says in Dutch what is not done yet. No database transaction is open during agent calls. The
 * audit entry (user.access.revoke / user.access.restore) lists what was done per dev server.
 */
export async function applyUserAccess(deps: HostAccessDeps, userId: number, options: ApplyUserAccessOptions): Promise<AccessOutcome> {
  return deps.locks.access.run(`user:${userId}`, async () => {
    // The retry job's intent may have been carried out by the request whose run it waited for.
    if (options.pendingId !== undefined && !(await isStillPending(deps.knex, options.pendingId))) return COMPLETE;
    const user = await accessFlagsOf(deps.knex, userId);
    if (!user) return COMPLETE;
    const entitled = mayHaveHostAccess(user);
    const stopSole = !entitled && (options.stopSoleContainers ?? false);
    const pending = await recordPendingAccess(deps.knex, { userId }, { reason: options.reason, stopSoleContainers: stopSole });
    const report = new HostAccessReport(deps.logger.child({ userId }));
    // The databases first: a connection killed by the lock can still tell the student's client
    // so through the tunnel, which goes right after.
    await lockOrUnlockDatabases(deps, report, userId, entitled);
    await Promise.all([removeOrRestorePeer(deps, report, userId, entitled), projectAccess(deps, report, userId, entitled, stopSole)]);
    const notDone = report.message();
    await settlePendingAccessWithAudit(
      deps.knex,
      pending,
      notDone,
      report.didAnything
        ? {
            actorId: options.actorId,
            action: entitled ? 'user.access.restore' : 'user.access.revoke',
            subjectType: 'user',
            subjectId: userId,
            after: { reason: options.retry ? `retry: ${options.reason}` : options.reason, ...report.toAudit() },
          }
        : null,
    );
    deps.logger.info({ userId, entitled, reason: options.reason, retry: options.retry ?? false, complete: notDone === null }, entitled ? 'host access restored' : 'host access revoked');
    return { complete: notDone === null, notDone, steps: report.notDone };
  });
}
