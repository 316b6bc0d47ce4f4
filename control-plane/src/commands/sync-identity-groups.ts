import { HttpError } from '../errors.ts';
import { Group } from '../models/Group.ts';
import { Team } from '../models/Team.ts';
import { User } from '../models/User.ts';
import { addGroupMember } from './add-group-member.ts';
import { applyUserAccess } from './apply-user-access.ts';
import { createGroup } from './create-group.ts';
import { createTeam } from './create-team.ts';
import { grantAdmin } from './grant-admin.ts';
import { removeAdmin } from './remove-admin.ts';
import { removeGroupMember } from './remove-group-member.ts';
import { setDeveloper } from './set-developer.ts';
import { setTeamMember } from './toggle-team-member.ts';
import type { HostAccessDeps } from './sync-project-access.ts';

/** What a sign-in's claim values make of the managed fields; a field that is not managed is absent. */
export interface GroupPlan {
  /** The claim values that matched an entry, in claim order. */
  matched: string[];
  /** The cohort (capitals) or null for none; absent when the file manages no cohort. */
  cohort?: string | null;
  /** Each managed team with whether the user belongs in it; absent when the file names no team. */
  teams?: Array<{ name: string; member: boolean }>;
  admin?: boolean;
  developer?: boolean;
  /** Further cohorts the claim gave that lost to the first (a warning in the log). */
  ignoredCohorts: string[];
}

/** The reason every audit entry of the sync carries (its actor is null: the system). */
export const GROUP_SYNC_REASON = 'OIDC_GROUPS_CLAIM';

export interface GroupSyncOutcome {
  /** What changed, one line each (e.g. "cohort: SD24 → SD25", "team Webshop: removed"). */
  changes: string[];
  /** What the sync did not take away, and why (the last admin, INITIAL_ADMIN_EMAILS). */
  kept: string[];
  /** A dev server that did not answer yet after a developer change, in Dutch (the retry job finishes it); null when done. */
  accessNotDone: string | null;
  /** Set when nothing was looked at: the account is disabled. */
  skipped?: 'disabled' | 'unknown';
}

/** A group by cohort (case-insensitively), made when missing (group.create, no actor). */
async function groupIdOf(deps: HostAccessDeps, cohort: string): Promise<number> {
  const find = () => Group.query(deps.knex).whereRaw('upper(cohort) = ?', [cohort.toUpperCase()]).first().select('id');
  const existing = await find();
  if (existing) return existing.id;
  try {
    return (await createGroup(deps.knex, null, cohort.toUpperCase())).id;
  } catch (error) {
    // Another sign-in made it a moment ago.
    const made = error instanceof HttpError && error.status === 422 ? await find() : undefined;
    if (made) return made.id;
    throw error;
  }
}

/** A team by name (case-insensitively), made when `create` and missing (team.create, no actor); undefined otherwise. */
async function teamIdOf(deps: HostAccessDeps, name: string, create: boolean): Promise<number | undefined> {
  const find = () => Team.query(deps.knex).whereRaw('lower(name) = lower(?)', [name]).first().select('id');
  const existing = await find();
  if (existing || !create) return existing?.id;
  try {
    return (await createTeam(deps.knex, null, name)).id;
  } catch (error) {
    const made = error instanceof HttpError && error.status === 422 ? await find() : undefined;
    if (made) return made.id;
    throw error;
  }
}

/**
 * Makes the fields the mapping manages (GroupPlan) true for a user at their school sign-in,
 * each change through the command an admin's change goes through, with that command's audit
 * entry (no actor, reason OIDC_GROUPS_CLAIM):
 * - cohort: addGroupMember / removeGroupMember; a cohort that does not exist yet is created;
 * - teams: setTeamMember (the teams page's write) for every team the file names; a missing team
 *   is created only when the user belongs in it;
 * - admin: grantAdmin, or removeAdmin (the CLI's: never the last active admin). An address in
 *   INITIAL_ADMIN_EMAILS (`keepAdminEmails`) is never demoted by the sync;
 * - developer: setDeveloper (clearing it ends the user's other sessions) and then applyUserAccess,
 *   THE revocation path: databases locked, VPN peer removed, SSH keys and sessions out of their
 *   projects' containers, sole containers stopped; or given back when granted.
 * A disabled account is left alone (it cannot sign in anyway). Runs after the account is found
 * or made and before the session starts, so the first page already shows the result.
 */
export async function syncIdentityGroups(
  deps: HostAccessDeps,
  userId: number,
  plan: GroupPlan,
  options: { keepAdminEmails?: readonly string[] } = {},
): Promise<GroupSyncOutcome> {
  const outcome: GroupSyncOutcome = { changes: [], kept: [], accessNotDone: null };
  const user = await User.query(deps.knex).findById(userId).select('id', 'email', 'admin', 'developer', 'group_id', 'disabled_at');
  if (!user) return { ...outcome, skipped: 'unknown' };
  if (user.disabled_at !== null) return { ...outcome, skipped: 'disabled' };

  if (plan.cohort !== undefined) {
    const current = user.group_id === null ? undefined : await Group.query(deps.knex).findById(user.group_id).select('id', 'cohort');
    if (plan.cohort === null) {
      if (current) {
        await removeGroupMember(deps.knex, null, current.id, userId, GROUP_SYNC_REASON);
        outcome.changes.push(`cohort: ${current.cohort} → none`);
      }
    } else if (current?.cohort.toUpperCase() !== plan.cohort.toUpperCase()) {
      await addGroupMember(deps.knex, null, await groupIdOf(deps, plan.cohort), userId, GROUP_SYNC_REASON);
      outcome.changes.push(`cohort: ${current?.cohort ?? 'none'} → ${plan.cohort}`);
    }
  }

  for (const team of plan.teams ?? []) {
    const teamId = await teamIdOf(deps, team.name, team.member);
    if (teamId === undefined) continue;
    const { changed } = await deps.knex.transaction((trx) => setTeamMember(trx, null, teamId, userId, team.member, GROUP_SYNC_REASON));
    if (changed) outcome.changes.push(`team ${team.name}: ${team.member ? 'added' : 'removed'}`);
  }

  if (plan.admin === true && !user.admin) {
    if (await grantAdmin(deps.knex, userId, GROUP_SYNC_REASON)) outcome.changes.push('admin: granted');
  } else if (plan.admin === false && user.admin) {
    if ((options.keepAdminEmails ?? []).includes(user.email.toLowerCase())) {
      outcome.kept.push('admin: the address is in INITIAL_ADMIN_EMAILS');
    } else {
      const removed = await removeAdmin(deps.knex, { userId }, GROUP_SYNC_REASON);
      if (removed.change === 'removed') outcome.changes.push('admin: removed');
      else if (removed.change === 'last-admin') outcome.kept.push('admin: the last active admin');
    }
  }

  if (plan.developer !== undefined && plan.developer !== user.developer) {
    await setDeveloper(deps.knex, null, userId, plan.developer, GROUP_SYNC_REASON);
    outcome.changes.push(`developer: ${plan.developer ? 'granted' : 'removed'}`);
    const access = await applyUserAccess(deps, userId, { actorId: null, reason: 'user.developer', stopSoleContainers: !plan.developer });
    outcome.accessNotDone = access.notDone;
  }
  return outcome;
}
