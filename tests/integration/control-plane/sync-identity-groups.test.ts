/**
 * syncIdentityGroups against a real PostgreSQL, for what the sign-in story does not reach: the
 * last active admin is never demoted by the groups, a disabled account is left alone, a team the
 * user does not belong in is not made, and a cohort is matched case-insensitively.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncIdentityGroups } from '../../../control-plane/src/commands/sync-identity-groups.ts';
import type { HostAccessDeps } from '../../../control-plane/src/commands/sync-project-access.ts';
import { KeyedLock } from '@devplein/server-kit/keyed-lock';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';

let database: TestDatabase;
let deps: HostAccessDeps;

/** No dev server is asked anything here (the developer flag is not in these plans). */
const noAgents: HostAccessDeps['agents'] = {
  link: () => {
    throw new Error('no dev server expected');
  },
};

beforeAll(async () => {
  database = await createTestDatabase();
  deps = { knex: database.knex, agents: noAgents, logger: pino({ level: 'silent' }), locks: { access: new KeyedLock() } };
});

afterAll(async () => {
  await database?.destroy();
});

let made = 0;
async function user(fields: Record<string, unknown>): Promise<number> {
  made += 1;
  const [row] = await database
    .knex('users')
    .insert({ name: `Persoon ${made}`, name_slug: `persoon-${made}`, email: `persoon${made}@school.test`, email_verified_at: new Date(), admin: false, developer: false, ...fields })
    .returning<{ id: number }[]>('id');
  return Number(row?.id);
}

const auditOf = (userId: number) => database.knex('audit_log').where({ subject_type: 'user', subject_id: String(userId) }).pluck('action');

describe('syncIdentityGroups', () => {
  it('never demotes the last active admin, and says so', async () => {
    const only = await user({ admin: true });
    const outcome = await syncIdentityGroups(deps, only, { matched: [], admin: false, ignoredCohorts: [] });
    expect(outcome).toMatchObject({ changes: [], kept: ['admin: the last active admin'] });
    expect((await database.knex('users').where({ id: only }).first<{ admin: boolean }>('admin')).admin).toBe(true);
    expect(await auditOf(only)).toEqual([]);

    // With another active admin the same plan demotes.
    await user({ admin: true });
    expect((await syncIdentityGroups(deps, only, { matched: [], admin: false, ignoredCohorts: [] })).changes).toEqual(['admin: removed']);
    expect(await auditOf(only)).toEqual(['user.admin']);
  });

  it('leaves a disabled account alone', async () => {
    const gone = await user({ admin: true, disabled_at: new Date() });
    const outcome = await syncIdentityGroups(deps, gone, { matched: [], admin: false, cohort: 'SD30', teams: [{ name: 'X', member: true }], ignoredCohorts: [] });
    expect(outcome.skipped).toBe('disabled');
    expect(await database.knex('users').where({ id: gone }).first('admin', 'group_id')).toEqual({ admin: true, group_id: null });
    expect(await database.knex('groups').where({ cohort: 'SD30' }).first()).toBeUndefined();
  });

  it('makes a team only for someone who belongs in it, and finds a cohort whatever its case', async () => {
    const [group] = await database.knex('groups').insert({ cohort: 'SD31' }).returning<{ id: number }[]>('id');
    const person = await user({});
    const outcome = await syncIdentityGroups(deps, person, {
      matched: ['x'],
      cohort: 'sd31',
      teams: [
        { name: 'Nog niet bestaand', member: false },
        { name: 'Nieuw team', member: true },
      ],
      ignoredCohorts: [],
    });
    expect(outcome.changes).toEqual(['cohort: none → sd31', 'team Nieuw team: added']);
    expect((await database.knex('users').where({ id: person }).first<{ group_id: number }>('group_id')).group_id).toBe(group?.id);
    expect(await database.knex('teams').whereIn('name', ['Nog niet bestaand', 'Nieuw team']).pluck('name')).toEqual(['Nieuw team']);
    expect(Number((await database.knex('groups').whereRaw('upper(cohort) = ?', ['SD31']).count<{ count: string }[]>('* as count'))[0]?.count)).toBe(1);
  });
});
