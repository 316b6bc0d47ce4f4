import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { User } from '../models/User.ts';
import { accountSnapshot, adminUserRow } from '../queries/users.ts';
import { disableUser } from './disable-user.ts';
import { projectMembersLeft } from './deploy-credentials.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { mayHaveContainer } from '../queries/projects.ts';
import { HostAccessReport, type NotDoneStep } from './host-access-report.ts';
import { type HostAccessDeps, syncProjectAccess } from './sync-project-access.ts';

export type DeleteUserResult =
  /** `notDone`: steps an agent cannot do yet (too old), left to the retry job; null when all is done. */
  | { outcome: 'deleted'; notDone: string | null }
  | { outcome: 'missing' }
  /** A dev server did not answer: the user stays (disabled); `message` names what is left. */
  | { outcome: 'unfinished'; message: string };

interface Owned {
  databases: Array<{ id: number; name: string; db_user: string; host: string | null }>;
  vpn: { id: number; public_key: string; address: string; host: string | null } | undefined;
  /** Projects in which the user is the only member: they go with the user. */
  soleProjects: Array<{ id: number; name: string; domain: string; host: string | null; validated: boolean | null }>;
  /** Projects shared with others: they stay, without this member. */
  sharedProjectIds: number[];
  /** Those of them that may have a container (approved now or once). */
  sharedContainerProjectIds: number[];
}

async function ownedBy(knex: Knex, userId: number): Promise<Owned> {
  const memberOf = knex('project_user').select('project_id').where('user_id', userId);
  const [databases, vpn, projects] = await Promise.all([
    knex('databases').where({ user_id: userId }).orderBy('id').select<Owned['databases']>('id', 'name', 'db_user', 'host'),
    knex('vpn_configs').where({ user_id: userId }).first<Owned['vpn']>('id', 'public_key', 'address', 'host'),
    knex('projects as p')
      .whereIn('p.id', memberOf)
      .orderBy('p.name')
      .select<Array<Owned['soleProjects'][number] & { others: string | number }>>(
        'p.id',
        'p.name',
        'p.domain',
        'p.host',
        'p.validated',
        knex.raw('(select count(*) from project_user o where o.project_id = p.id and o.user_id <> ?) as others', [userId]),
      ),
  ]);
  const shared = projects.filter((project) => Number(project.others) > 0);
  const withContainer = await Promise.all(shared.map(async (project) => (project.validated === true || (await mayHaveContainer(knex, project)) ? Number(project.id) : 0)));
  return {
    databases,
    vpn,
    soleProjects: projects.filter((project) => Number(project.others) === 0).map(({ others: _others, ...project }) => project),
    sharedProjectIds: shared.map((project) => Number(project.id)),
    sharedContainerProjectIds: withContainer.filter((id) => id > 0),
  };
}

/** Steps that stop a delete: the dev server did not answer or refused. An agent too old to end sessions does not (the job retries that). */
const blocks = (step: NotDoneStep): boolean => step.why === 'unreachable' || step.why === 'failed';

/**
 * Removes what the user has on the dev servers, each step idempotent and its row deleted as
 * soon as its host side is gone (a retry after a failure finishes the job): databases (their
 * accounts' connections end with them), the VPN peer, the containers of projects in which they
 * are the only member (and those projects), and in shared projects' containers their SSH keys
 * and sessions (syncProjectAccess, whose intent outlives the user row if an agent is too old).
 */
async function removeHostResources(deps: HostAccessDeps, report: HostAccessReport, actorId: number, userId: number, owned: Owned): Promise<void> {
  const { knex, agents } = deps;
  await Promise.all([
    ...owned.databases.map(async (database) => {
      const link = agents.link(database.host);
      const dropped = await report.step(link.name, `database ${database.name} verwijderen`, () => link.client.databases.dropDatabase({ name: database.name, user: database.db_user }));
      if (dropped === undefined) return;
      await knex('databases').where({ id: database.id }).delete();
      report.add(link.name, 'databases_dropped', database.name);
    }),
    (async () => {
      const vpn = owned.vpn;
      if (!vpn) return;
      const link = agents.link(vpn.host);
      if ((await report.step(link.name, 'de VPN-configuratie verwijderen', () => link.client.vpn.removePeer(vpn.public_key))) === undefined) return;
      await knex('vpn_configs').where({ id: vpn.id }).delete();
      report.note(link.name, 'vpn_peer_removed', vpn.address);
    })(),
    ...owned.soleProjects.map(async (project) => {
      const link = agents.link(project.host);
      if (await mayHaveContainer(knex, project)) {
        const removed = await report.step(link.name, `project ${project.name} verwijderen`, () => link.client.containers.removeContainer({ projectId: project.id }));
        if (removed === undefined) return;
        if (removed.removed) report.add(link.name, 'containers_removed', project.name);
      }
      await knex.transaction(async (trx) => {
        await recordAudit(trx, {
          actorId,
          action: 'project.delete',
          subjectType: 'project',
          subjectId: project.id,
          before: { name: project.name, domain: project.domain, host: link.name, members: [userId], reason: 'user.delete' },
        });
        await trx('projects').where({ id: project.id }).delete();
      });
      report.add(link.name, 'projects_deleted', project.name);
    }),
  ]);
  for (const projectId of owned.sharedContainerProjectIds) {
    const outcome = await syncProjectAccess(deps, projectId, { reason: 'user.delete', endSessionsOf: [userId], actorId });
    report.absorb(outcome.steps);
  }
}

/**
 * DELETE /api/admin/users/{id}. DECISION: the delete cascades through the agents instead of
 * refusing while the user still has databases, a VPN configuration or projects of their own: a
 * teacher has no screen to remove a student's databases or VPN configuration, so a refusal meant
 * such a student could never be deleted.
 *
 * 1. Revoke first: the account is disabled (if it was not) and signed out everywhere, in one
 *    transaction with its audit entry, so nothing of theirs works while the rest runs.
 * 2. Host resources go through the agents (removeHostResources), each row right after its host
 *    side; nothing is done inside a database transaction.
 * 3. A dev server that does not answer (or refuses): the user row stays, disabled, and the
 *    answer names what is left; deleting again finishes the job.
 * 4. Otherwise the user row goes with its audit entry (user.delete, before snapshot with what
 *    was removed); the foreign keys cascade SSH keys, levels, licences, team and project
 *    memberships and sessions; shared projects stay without this member.
 */
export async function deleteUser(deps: HostAccessDeps & { secrets: SecretBox }, actorId: number, userId: number): Promise<DeleteUserResult> {
  const { knex } = deps;
  const before = await adminUserRow(knex, userId);
  if (before && before.disabled_at === null) await disableUser(knex, actorId, userId, 'user.delete');
  if (!before) return { outcome: 'missing' };

  const owned = await ownedBy(knex, userId);
  const report = new HostAccessReport(deps.logger.child({ userId }));
  await removeHostResources(deps, report, actorId, userId, owned);
  const blocking = report.notDone.filter(blocks);
  if (blocking.length > 0) {
    await recordAudit(knex, { actorId, action: 'user.delete.unfinished', subjectType: 'user', subjectId: userId, after: report.toAudit() });
    const left = [...new Set(blocking.map((step) => step.what))].join(', ');
    const hosts = [...new Set(blocking.map((step) => step.host))].join(', ');
    return {
      outcome: 'unfinished',
      message:
        `${before.name} is uitgeschakeld maar nog niet verwijderd: ontwikkelserver ${hosts} antwoordde niet of weigerde. ` +
        `Nog te doen: ${left}. Probeer het zo opnieuw; wat al weg is, blijft weg.`,
    };
  }

  const [sshKeys, teams] = await Promise.all([
    knex('ssh_keys').where({ user_id: userId }).orderBy('id').pluck<string[]>('fingerprint'),
    knex('team_user').where({ user_id: userId }).orderBy('team_id').pluck<number[]>('team_id'),
  ]);
  const sharedProjects = await knex('projects').whereIn('id', owned.sharedProjectIds).orderBy('name').pluck<string[]>('name');
  await knex.transaction(async (trx) => {
    await recordAudit(trx, {
      actorId,
      action: 'user.delete',
      subjectType: 'user',
      subjectId: userId,
      before: { ...accountSnapshot(before), ssh_keys: sshKeys, shared_projects: sharedProjects, team_ids: teams },
      after: report.toAudit(),
    });
    // The shared projects' webhook secrets they could read are renewed (issue 35); their tokens went when they were disabled.
    for (const projectId of owned.sharedProjectIds) await projectMembersLeft(trx, deps.secrets, projectId, [userId], actorId);
    await User.query(trx).deleteById(userId);
  });
  return { outcome: 'deleted', notDone: report.message() };
}
