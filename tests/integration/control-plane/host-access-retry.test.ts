/**
 * The retry job of access changes against a real PostgreSQL, with a dev server that answers only
 * when the test lets it: a pass that read an intent while a request was still carrying it out
 * waits for that request (one run per project at a time) and then finds the intent settled. It
 * must not do the same again: no second round of agent calls, no 'retry:' audit entry for work
 * that was never missed (seen in CI as a second EndSshSessions beside a member edit).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyedLock } from '@devplein/server-kit/keyed-lock';
import { syncProjectAccess, type HostAccessDeps } from '../../../control-plane/src/commands/sync-project-access.ts';
import { retryPendingAccess } from '../../../control-plane/src/jobs/host-access-retry.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await database?.destroy();
});

/** A promise the test settles when it chooses. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

let made = 0;
async function user(): Promise<number> {
  made += 1;
  const [row] = await database
    .knex('users')
    .insert({ name: `Lid ${made}`, name_slug: `lid-${made}`, email: `lid${made}@school.test`, email_verified_at: new Date(), developer: true })
    .returning<{ id: number }[]>('id');
  return Number(row?.id);
}

/** An approved project with these members, as the edit left it (the leaver is no member any more). */
async function project(members: number[]): Promise<number> {
  made += 1;
  const name = `toegang-${'abcdefghij'[made % 10]}${made}`;
  const [row] = await database
    .knex('projects')
    .insert({ name, domain: `${name}.dev.devplein.test`, description: `Project ${name}, lang genoeg voor de beschrijving.`, visible: false, validated: true })
    .returning<{ id: number }[]>('id');
  const id = Number(row?.id);
  for (const [position, member] of members.entries()) await database.knex('project_user').insert({ project_id: id, user_id: member, position });
  return id;
}

describe('the access retry job beside a request', () => {
  it('does not redo an intent that the request it waited for settled', async () => {
    const owner = await user();
    const leaver = await user();
    const projectId = await project([owner]);
    const calls: string[] = [];
    const endSessionsAnswered = gate();
    const endSessionsAsked = gate();
    const container = { id: 'c1', names: ['/c'], name: 'c', image: 'i', state: 'running', status: 'Up', labels: { 'devplein.ssh': 'true' }, createdAt: null, projectId, domain: 'd', managed: true, autoStop: null, exit: null };
    const agents = {
      link: () => ({
        name: 'dev1',
        client: {
          containers: { listContainers: async () => (calls.push('listContainers'), [container]) },
          ssh: {
            setAuthorizedKeys: async () => (calls.push('setAuthorizedKeys'), { written: true }),
            endSshSessions: async () => {
              calls.push('endSshSessions');
              endSessionsAsked.open();
              await endSessionsAnswered.opened;
              return { ended: 1, endedUnattributed: 0, kept: 0 };
            },
          },
        },
      }),
    } as unknown as HostAccessDeps['agents'];
    const accessLocks = new KeyedLock<string>();
    const deps: HostAccessDeps = { knex: database.knex, agents, logger: pino({ level: 'silent' }), locks: { access: accessLocks } };

    // The request: its intent is recorded, and the dev server is ending the leaver's sessions.
    const request = syncProjectAccess(deps, projectId, { reason: 'project.members', endSessionsOf: [leaver], actorId: owner });
    await endSessionsAsked.opened;
    // A pass of the retry job reads the intent and waits for the request's run of this project.
    const waiting = gate();
    const run = accessLocks.run.bind(accessLocks);
    vi.spyOn(accessLocks, 'run').mockImplementation(((key: string, work: () => Promise<unknown>) => {
      const result = run(key, work);
      if (key === `project:${projectId}`) waiting.open();
      return result;
    }) as typeof accessLocks.run);
    const retry = retryPendingAccess(deps);
    await waiting.opened;
    endSessionsAnswered.open();

    expect((await request).complete).toBe(true);
    expect(await retry).toEqual({ done: 1, left: 0 });
    expect(calls).toEqual(['listContainers', 'setAuthorizedKeys', 'endSshSessions']);
    const audits = await database.knex('audit_log').where({ action: 'project.access', subject_id: String(projectId) }).select<Array<{ after: { reason: string } }>>('after');
    expect(audits.map((entry) => entry.after.reason)).toEqual(['project.members']);
    expect(await database.knex('pending_host_access').where({ project_id: projectId })).toHaveLength(0);
  });
});
