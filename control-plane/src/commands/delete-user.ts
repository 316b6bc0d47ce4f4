import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { accountSnapshot, lockAdminUserRow } from './admin-user-rows.ts';

/** What of a user still lives on the dev server (containers, MySQL databases, WireGuard peer). */
export interface HostResources {
  /** Projects in which the user is the only member: their container would be orphaned. */
  soleProjects: string[];
  databases: string[];
  vpnConfig: boolean;
}

export type DeleteUserResult =
  | { outcome: 'deleted' }
  | { outcome: 'missing' }
  | { outcome: 'refused'; name: string; resources: HostResources; message: string };

const hasHostResources = (resources: HostResources): boolean =>
  resources.soleProjects.length > 0 || resources.databases.length > 0 || resources.vpnConfig;

/** The refusal in Dutch, naming every resource that has to go first. */
export function refusalMessage(name: string, resources: HostResources): string {
  const parts: string[] = [];
  if (resources.soleProjects.length > 0) {
    const label = resources.soleProjects.length === 1 ? 'project' : 'projecten';
    parts.push(`${label} ${resources.soleProjects.join(', ')} (${name} is daar het enige lid)`);
  }
  if (resources.databases.length > 0) {
    const label = resources.databases.length === 1 ? 'database' : 'databases';
    parts.push(`${label} ${resources.databases.join(', ')}`);
  }
  if (resources.vpnConfig) parts.push('de VPN-configuratie');
  return (
    `${name} kan nog niet verwijderd worden. Eerst moet weg: ${parts.join('; ')}. ` +
    'Die staan op de ontwikkelserver en moeten daar eerst verwijderd worden.'
  );
}

async function hostResourcesOf(trx: Knex.Transaction, userId: number): Promise<HostResources> {
  const [soleProjects, databases, vpn] = await Promise.all([
    trx('projects as p')
      .join('project_user as pu', 'pu.project_id', 'p.id')
      .where('pu.user_id', userId)
      .whereNotExists(trx('project_user as other').whereRaw('other.project_id = p.id').whereNot('other.user_id', userId))
      .orderBy('p.name')
      .pluck<string[]>('p.name'),
    trx('databases').where({ user_id: userId }).orderBy('name').pluck<string[]>('name'),
    trx('vpn_configs').where({ user_id: userId }).first('id'),
  ]);
  return { soleProjects, databases, vpnConfig: vpn !== undefined };
}

/**
 * DELETE /api/admin/users/{id}. Nothing on the dev server may be left orphaned, and the control
 * plane cannot remove host resources from inside a database transaction, so the delete is
 * REFUSED while the user still has projects of their own (only member), databases or a VPN
 * config: those are removed first through their own screens (which go through the agent).
 * Otherwise the user row goes in one transaction with its audit entry (user.delete, before
 * snapshot); the foreign keys cascade SSH keys, levels, licences, team and project memberships
 * and sessions; projects shared with others stay, without this member.
 */
export async function deleteUser(knex: Knex, actorId: number, userId: number): Promise<DeleteUserResult> {
  return knex.transaction(async (trx) => {
    const before = await lockAdminUserRow(trx, userId);
    if (!before) return { outcome: 'missing' };
    const resources = await hostResourcesOf(trx, userId);
    if (hasHostResources(resources)) {
      return { outcome: 'refused', name: before.name, resources, message: refusalMessage(before.name, resources) };
    }
    const [sshKeys, sharedProjects, teams] = await Promise.all([
      trx('ssh_keys').where({ user_id: userId }).orderBy('id').pluck<string[]>('fingerprint'),
      trx('project_user as pu').join('projects as p', 'p.id', 'pu.project_id').where('pu.user_id', userId).orderBy('p.name').pluck<string[]>('p.name'),
      trx('team_user').where({ user_id: userId }).orderBy('team_id').pluck<number[]>('team_id'),
    ]);
    await recordAudit(trx, {
      actorId,
      action: 'user.delete',
      subjectType: 'user',
      subjectId: userId,
      before: { ...accountSnapshot(before), ssh_keys: sshKeys, shared_projects: sharedProjects, team_ids: teams },
    });
    await trx('users').where({ id: userId }).delete();
    return { outcome: 'deleted' };
  });
}
