import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { DATABASE_NAME_MESSAGES } from '@devplein/contract/validation/databaseName';
import { MAX_DATABASES_PER_USER } from '../../../control-plane/src/policies/database-policy.ts';

import type { DatabaseJson } from '@devplein/contract/access';
import { listDatabases } from '@devplein/contract/http/databases';
import { call } from '../../support/clients/endpoint-calls.ts';

const UNREACHABLE = 'De databaseserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** The list, checked against the contract's schema. */
const list = (session: HttpSession): Promise<DatabaseJson[]> => call(session, listDatabases, {});

async function create(session: HttpSession, db: unknown): Promise<{ status: number; body: DatabaseJson[] & { message?: string; errors?: Record<string, string[]> } }> {
  return session.json('POST', '/api/user/databases', { db });
}

/** Drops every database of `email` through the API, so each test starts from an empty list. */
async function clear(email: string): Promise<void> {
  const session = await stack.as(email);
  for (const database of await list(session)) {
    expect((await session.json('DELETE', `/api/user/databases/${database.id}`)).status).toBe(200);
  }
}

describe('databases API: who may', () => {
  type Call = { name: string; send: (session: HttpSession) => Promise<Response> };
  const calls: Call[] = [
    { name: 'GET /api/user/databases', send: (s) => s.api('GET', '/api/user/databases') },
    { name: 'POST /api/user/databases', send: (s) => s.api('POST', '/api/user/databases', { db: 'rol' }) },
    { name: 'DELETE /api/user/databases/{id}', send: (s) => s.api('DELETE', '/api/user/databases/1') },
  ];

  it('anonymous 401; not activated, students and admins who are not developers 403; nothing reaches the agent', async () => {
    const before = stack.agent.calls.length;
    for (const call of calls) {
      const anonymous = await call.send(await stack.anonymous());
      expect(anonymous.status, `${call.name} anonymous`).toBe(401);
      const newcomer = await call.send(await stack.as(NOT_ACTIVATED));
      expect(newcomer.status, `${call.name} not activated`).toBe(403);
      expect(((await newcomer.json()) as { reason?: string }).reason).toBe('not_verified');
      for (const email of [STUDENT, DOCENT]) {
        const answer = await call.send(await stack.as(email));
        expect(answer.status, `${call.name} ${email}`).toBe(403);
        expect(((await answer.json()) as { message: string }).message).toBe('Databases zijn alleen voor ontwikkelaars.');
      }
    }
    const databaseMethods = ['createDatabase', 'dropDatabase', 'listDatabases'];
    expect(stack.agent.calls.slice(before).filter((call) => databaseMethods.includes(call.method))).toEqual([]);
    expect(await stack.database.knex('databases').select('id')).toEqual([]);
  });

  it('gives a developer and an admin-developer their own (empty) list', async () => {
    for (const email of [DEVELOPER, ADMIN]) {
      const response = await (await stack.as(email)).api('GET', '/api/user/databases');
      expect(response.status, email).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual([]);
    }
  });
});

describe('databases API: creating', () => {
  beforeAll(async () => {
    await clear(DEVELOPER);
  });

  it('creates u{userId}_{name} with its account and a 24-character password, stored sealed, and answers the list', async () => {
    const olga = await stack.as(DEVELOPER);
    const olgaId = await stack.userId(DEVELOPER);
    const { status, body } = await create(olga, 'abc');
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    const [database] = body;
    expect(database).toMatchObject({ name: `u${olgaId}_abc`, user: `u${olgaId}_abc` });
    expect(database?.password).toHaveLength(24);
    expect(stack.agent.databases.get(`u${olgaId}_abc`)).toMatchObject({ user: `u${olgaId}_abc`, password: database?.password, ownerUserId: olgaId });

    const row = await stack.database.knex('databases').where({ id: database?.id }).first();
    expect(row).toMatchObject({ user_id: olgaId, name: `u${olgaId}_abc`, db_user: `u${olgaId}_abc` });
    expect(row.password_encrypted).toMatch(/^v1\./);
    expect(row.password_encrypted).not.toContain(database?.password);

    expect(await list(olga)).toEqual(body);
  });

  it('lowercases the name (forced lowercase, §5)', async () => {
    const olga = await stack.as(DEVELOPER);
    const { status, body } = await create(olga, 'XY');
    expect(status).toBe(200);
    expect(body.map((database) => database.name)).toContain(`u${await stack.userId(DEVELOPER)}_xy`);
  });

  it.each([
    ['empty', '', DATABASE_NAME_MESSAGES.empty],
    ['4 letters', 'abcd', DATABASE_NAME_MESSAGES.tooLong],
    ['digits only', '123', DATABASE_NAME_MESSAGES.lettersOnly],
    ['a quote', "a'b", DATABASE_NAME_MESSAGES.lettersOnly],
    ['a double quote', 'a"', DATABASE_NAME_MESSAGES.lettersOnly],
    ['a backtick', 'a`b', DATABASE_NAME_MESSAGES.lettersOnly],
    ['unicode', 'äb', DATABASE_NAME_MESSAGES.lettersOnly],
    ['an emoji', '😀', DATABASE_NAME_MESSAGES.lettersOnly],
    ['an underscore', 'a_b', DATABASE_NAME_MESSAGES.lettersOnly],
    ['SQL', 'a;drop', DATABASE_NAME_MESSAGES.lettersOnly],
    ['a number', 12, DATABASE_NAME_MESSAGES.empty],
    ['nothing', undefined, DATABASE_NAME_MESSAGES.empty],
    ['the name of an existing database', 'abc', DATABASE_NAME_MESSAGES.taken],
    ['an existing name in capitals', 'ABC', DATABASE_NAME_MESSAGES.taken],
  ])('refuses %s with 422 and the db field error, and sends nothing to the agent', async (_what, db, message) => {
    const olga = await stack.as(DEVELOPER);
    const before = await list(olga);
    const agentCalls = stack.agent.callsOf('createDatabase').length;
    const { status, body } = await create(olga, db);
    expect(status).toBe(422);
    expect(body.errors).toEqual({ db: [message] });
    expect(typeof body.message).toBe('string');
    expect(stack.agent.callsOf('createDatabase')).toHaveLength(agentCalls);
    expect(await list(olga)).toEqual(before);
  });

  it('compares with the part after the underscore: another student may use the same letters', async () => {
    const anna = await stack.as(ADMIN);
    const { status, body } = await create(anna, 'abc');
    expect(status).toBe(200);
    expect(body.map((database) => database.name)).toEqual([`u${await stack.userId(ADMIN)}_abc`]);
    await clear(ADMIN);
  });

  it('makes one database when the same name is sent twice at once', async () => {
    const olga = await stack.as(DEVELOPER);
    const answers = await Promise.all([create(olga, 'dub'), create(olga, 'dub')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
    expect((await list(olga)).filter((database) => database.name.endsWith('_dub'))).toHaveLength(1);
  });

  it(`stops at ${MAX_DATABASES_PER_USER} databases per user`, async () => {
    await clear(DEVELOPER);
    const olga = await stack.as(DEVELOPER);
    const names = ['aa', 'bb', 'cc', 'dd', 'ee', 'ff', 'gg', 'hh', 'ii', 'jj', 'kk', 'll'].slice(0, MAX_DATABASES_PER_USER);
    for (const name of names) expect((await create(olga, name)).status).toBe(200);
    const { status, body } = await create(olga, 'zzz');
    expect(status).toBe(422);
    expect(body.errors?.db?.[0]).toContain(`maximaal ${MAX_DATABASES_PER_USER}`);
    await clear(DEVELOPER);
  });
});

describe('databases API: dropping and owners', () => {
  it('drops database and account through the agent and answers the updated list', async () => {
    await clear(DEVELOPER);
    const olga = await stack.as(DEVELOPER);
    const olgaId = await stack.userId(DEVELOPER);
    await create(olga, 'abc');
    const { body } = await create(olga, 'def');
    const abc = body.find((database) => database.name === `u${olgaId}_abc`);
    const dropped = await olga.json<DatabaseJson[]>('DELETE', `/api/user/databases/${abc?.id}`);
    expect(dropped.status).toBe(200);
    expect(dropped.body.map((database) => database.name)).toEqual([`u${olgaId}_def`]);
    expect(stack.agent.callsOf('dropDatabase').at(-1)?.request).toEqual({ name: `u${olgaId}_abc`, user: `u${olgaId}_abc` });
    expect(stack.agent.databases.has(`u${olgaId}_abc`)).toBe(false);
    expect(await stack.database.knex('databases').where({ id: abc?.id }).first()).toBeUndefined();
  });

  it("shows a database only to its owner: someone else's id is 404 and not dropped; a bad id is 422", async () => {
    const olga = await stack.as(DEVELOPER);
    const anna = await stack.as(ADMIN);
    const own = (await list(olga))[0];
    expect(own).toBeDefined();
    expect((await list(anna)).map((database) => database.id)).not.toContain(own?.id);
    const drops = stack.agent.callsOf('dropDatabase').length;
    const foreign = await anna.json<{ message: string }>('DELETE', `/api/user/databases/${own?.id}`);
    expect(foreign).toEqual({ status: 404, body: { message: 'Deze database bestaat niet.' } });
    expect((await anna.json('DELETE', '/api/user/databases/987654')).status).toBe(404);
    expect((await anna.json('DELETE', '/api/user/databases/abc')).status).toBe(422);
    expect(stack.agent.callsOf('dropDatabase')).toHaveLength(drops);
    expect(await list(olga)).toContainEqual(own);
  });
});

describe('databases API: when the agent fails', () => {
  it('answers 503 with a Dutch message and stores nothing when the agent is unavailable', async () => {
    await clear(DEVELOPER);
    const olga = await stack.as(DEVELOPER);
    stack.agent.mode = 'unavailable';
    try {
      const { status, body } = await create(olga, 'off');
      expect(status).toBe(503);
      expect(body.message).toBe(UNREACHABLE);
    } finally {
      stack.agent.mode = 'ok';
    }
    expect(await list(olga)).toEqual([]);
    expect(await stack.database.knex('databases').where({ user_id: await stack.userId(DEVELOPER) })).toEqual([]);
  });

  it('answers 503 when the agent is off the network; a failed drop keeps the row', async () => {
    const olga = await stack.as(DEVELOPER);
    const { body } = await create(olga, 'kep');
    const database = body[0];
    await stack.agent.stop();
    try {
      const creating = await create(olga, 'new');
      expect(creating.status).toBe(503);
      expect(creating.body.message).toBe(UNREACHABLE);
      const dropping = await olga.json<{ message: string }>('DELETE', `/api/user/databases/${database?.id}`);
      expect(dropping).toEqual({ status: 503, body: { message: UNREACHABLE } });
    } finally {
      await stack.restartAgent();
    }
    expect(await list(olga)).toEqual(body);
  });

  it('a failing agent create (INTERNAL) stores nothing; a failing drop keeps the row', async () => {
    await clear(DEVELOPER);
    const olga = await stack.as(DEVELOPER);
    stack.agent.failingMethods.add('createDatabase');
    try {
      expect((await create(olga, 'err')).status).toBe(502);
    } finally {
      stack.agent.failingMethods.delete('createDatabase');
    }
    expect(await list(olga)).toEqual([]);

    const { body } = await create(olga, 'err');
    stack.agent.failingMethods.add('dropDatabase');
    try {
      expect((await olga.json('DELETE', `/api/user/databases/${body[0]?.id}`)).status).toBe(502);
    } finally {
      stack.agent.failingMethods.delete('dropDatabase');
    }
    expect(await list(olga)).toEqual(body);
    await clear(DEVELOPER);
  });

  it('an orphan on the database server (made before, its answer lost: no row) is replaced, not a dead end', async () => {
    const olga = await stack.as(DEVELOPER);
    const name = `u${await stack.userId(DEVELOPER)}_old`;
    stack.agent.databases.set(name, { name, user: name, password: 'x'.repeat(24), ownerUserId: 0 });
    const { status, body } = await create(olga, 'old');
    expect(status).toBe(200);
    expect(body.map((database) => database.name)).toEqual([name]);
    expect(body[0]?.password).not.toBe('x'.repeat(24));
    expect(stack.agent.databases.get(name)?.password).toBe(body[0]?.password);
    await clear(DEVELOPER);
  });

  it('answers 501 while the agent does not implement databases yet, and stores nothing', async () => {
    const olga = await stack.as(DEVELOPER);
    const before = await list(olga);
    stack.agent.unimplementedMethods.add('createDatabase');
    try {
      const { status, body } = await create(olga, 'nog');
      expect(status).toBe(501);
      expect(body.message).toBe('Databases worden door de ontwikkelserver nog niet ondersteund.');
    } finally {
      stack.agent.unimplementedMethods.delete('createDatabase');
    }
    expect(await list(olga)).toEqual(before);
  });

  it('drops the database through the agent when its user is deleted (no more 409; nothing left orphaned on the dev server)', async () => {
    const leaver = await stack.newDeveloper('Vertrekt Met Database');
    expect((await create(leaver.session, 'own')).status).toBe(200);
    expect(stack.agent.databases.has(`u${leaver.id}_own`)).toBe(true);
    expect((await (await stack.as(ADMIN)).api('DELETE', `/api/admin/users/${leaver.id}`)).status).toBe(204);
    expect(stack.agent.databases.has(`u${leaver.id}_own`)).toBe(false);
    expect(await stack.database.knex('databases').where({ user_id: leaver.id })).toEqual([]);
  });
});
