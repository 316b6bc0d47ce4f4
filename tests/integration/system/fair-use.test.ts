/**
 * Fair use between students (issue 15): the project quota counts the projects a student
 * requested (being added to others' projects cannot use it up), and one user holds at most
 * LOG_FOLLOW_PER_USER live log streams at once (429 with a Dutch message beyond that). Against
 * the fake agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, NO_GROUP, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { waitFor } from '../../support/clients/ports.ts';

const QUOTA = 2;
const FOLLOWS = 3;

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack({ env: { PROJECT_QUOTA: String(QUOTA), LOG_FOLLOW_PER_USER: String(FOLLOWS), THUMBNAIL_CRON: 'off' } });
});

afterAll(async () => {
  await stack?.stop();
});

let counter = 0;
function request(): Record<string, unknown> {
  counter += 1;
  const name = `eerlijk-${'abcdefghij'[counter % 10]}${'abcdefghij'[Math.floor(counter / 10) % 10]}`;
  return {
    name,
    domain: `${name}.${SITE}`,
    docker_id: 5,
    description: 'Een project om de projectlimiet van devplein mee te proberen, lang genoeg.',
    visible: false,
    repro: '',
    end_date: null,
    users: [],
  };
}

describe('the project quota', () => {
  it('counts the projects a student requested, not the ones others added them to', async () => {
    const student = await stack.as(STUDENT);
    const studentId = await stack.userId(STUDENT);
    // Start from students who requested nothing yet (the seed may have made projects for them).
    await stack.database.knex('projects').update({ created_by: null });
    // Others add the student to more projects than the quota.
    for (const email of [DEVELOPER, NO_GROUP, DEVELOPER]) {
      const answer = await (await stack.as(email)).json('POST', '/api/user/project', { ...request(), users: [studentId] });
      expect(answer.status, `${email} adds the student`).toBe(201);
    }
    const memberships = Number((await stack.database.knex('project_user').where('user_id', studentId).count('* as count'))[0]?.count);
    expect(memberships).toBeGreaterThan(QUOTA);

    for (let i = 0; i < QUOTA; i++) expect((await student.json('POST', '/api/user/project', request())).status).toBe(201);
    const refused = await student.json<{ message: string; errors?: Record<string, string[]> }>('POST', '/api/user/project', request());
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(`Je hebt al ${QUOTA} projecten aangevraagd; meer mag niet. Verwijder eerst een project dat je niet meer gebruikt, of vraag een docent om hulp.`);
    expect(refused.body.errors?.project).toEqual([refused.body.message]);
  });

  it('stops counting a requested project the student is no longer a member of', async () => {
    const developer = await stack.as(DEVELOPER);
    const developerId = await stack.userId(DEVELOPER);
    await stack.database.knex('projects').update({ created_by: null });
    const made: number[] = [];
    for (let i = 0; i < QUOTA; i++) {
      const answer = await developer.json<{ id: number }>('POST', '/api/user/project', request());
      expect(answer.status).toBe(201);
      made.push(answer.body.id);
    }
    expect((await developer.json('POST', '/api/user/project', request())).status).toBe(422);
    // An admin takes the developer off one of them: it is no longer theirs to count.
    await stack.database.knex('project_user').where({ project_id: made[0], user_id: developerId }).delete();
    expect((await developer.json('POST', '/api/user/project', request())).status).toBe(201);
  });
});

describe('live log streams per user', () => {
  it(`allows ${FOLLOWS} at once, answers the next with 429 in Dutch, and frees a place when one closes`, async () => {
    const project = await stack.project({ name: 'eerlijk-logs', members: [STUDENT] });
    const student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    const path = `/api/user/container/${project.name}/follow`;
    const follow = (session: HttpSession, signal?: AbortSignal): Promise<Response> =>
      session.raw(path, { headers: { 'X-Requested-With': 'XMLHttpRequest', Accept: 'text/event-stream' }, signal });
    const open: AbortController[] = [];
    for (let i = 0; i < FOLLOWS; i++) {
      const controller = new AbortController();
      const response = await follow(student, controller.signal);
      expect(response.status, `stream ${i + 1}`).toBe(200);
      open.push(controller);
    }
    const refused = await follow(student);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: `Je volgt al ${FOLLOWS} logs tegelijk. Sluit eerst een ander logvenster.` });

    // Another user has places of their own.
    const admin = await stack.as(ADMIN);
    const adminStream = new AbortController();
    expect((await follow(admin, adminStream.signal)).status).toBe(200);
    adminStream.abort();

    open.shift()?.abort();
    await waitFor(async () => {
      const controller = new AbortController();
      const response = await follow(student, controller.signal);
      if (response.status === 200) {
        open.push(controller);
        return true;
      }
      expect(response.status).toBe(429);
      return false;
    }, { description: 'a place to be free after a stream closed', timeoutMs: 10_000, intervalMs: 100 });
    for (const controller of open) controller.abort();
  });
});
