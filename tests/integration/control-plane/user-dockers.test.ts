import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_FAILED_MESSAGE } from '../../../control-plane/src/middlewares/request-context.ts';
import { waitFor } from '../../support/clients/ports.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import {
  ADMIN,
  DEVELOPER,
  IMAGE,
  NO_GROUP,
  NOT_ACTIVATED,
  STUDENT,
  startHostingStack,
  type HostingStack,
} from '../../support/stacks/hosting-stack.ts';
import type { UserDocker } from '@devplein/contract/dockers';
import { generateSshKeys } from '../../support/fixtures/ssh-keygen-fixtures.ts';
import { listUserDockers, createUserDocker } from '@devplein/contract/http/user-dockers';
import { call } from '../../support/clients/endpoint-calls.ts';


const UNREACHABLE_MESSAGE = 'De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
const OWN_IMAGE = 'devplein/php:8.3';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack({
    pullableImages: [OWN_IMAGE, 'devplein/node:20'],
    unreachableRegistries: ['registry.kapot.test:5000'],
  });
});

afterAll(async () => {
  await stack?.stop();
});

/** The cards, checked against the contract's schema (a field the contract does not declare fails). */
const dockers = (session: HttpSession): Promise<UserDocker[]> => call(session, listUserDockers, {});

const card = (list: UserDocker[], name: string): UserDocker | undefined => list.find((item) => item.Names[0] === `/${name}`);

/** Reads a streamed answer to its end (or until `until` matches the text so far), then cancels it. */
async function readStream(response: Response, until?: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
    if (until?.(text)) {
      await reader.cancel();
      return text;
    }
  }
  await reader.cancel();
  return text;
}

describe('routes × roles of every student container route', () => {
  let project: { id: number; name: string };

  beforeAll(async () => {
    project = await stack.project({ name: 'rollen-wp', image: IMAGE.wordpress, members: [STUDENT] });
    const created = await (await stack.as(STUDENT)).json('POST', '/api/user/dockers', { id: project.id });
    expect(created.status).toBe(200);
  });

  type Call = { name: string; send: (session: HttpSession) => Promise<Response>; memberStatus?: number; outsiderStatus?: number };
  const calls = (): Call[] => [
    { name: 'GET /api/user/dockers', send: (s) => s.api('GET', '/api/user/dockers'), outsiderStatus: 200 },
    { name: 'POST /api/user/dockers', send: (s) => s.api('POST', '/api/user/dockers', { id: project.id }) },
    { name: 'PUT /api/user/dockers/{id}?action=restart', send: (s) => s.api('PUT', `/api/user/dockers/${project.id}?action=restart`) },
    { name: 'GET /api/user/container/{name}', send: (s) => s.api('GET', `/api/user/container/${project.name}`) },
    { name: 'GET /api/user/container/{name}/follow', send: (s) => s.api('GET', `/api/user/container/${project.name}/follow`) },
    { name: 'GET /api/user/container/{name}/stats', send: (s) => s.api('GET', `/api/user/container/${project.name}/stats`) },
    { name: 'POST /api/user/dockers_images', send: (s) => s.api('POST', '/api/user/dockers_images', { image: 'devplein/wordpress:6', project_id: project.id }) },
    { name: 'POST /api/wordpress/passwordreset/{project}', send: (s) => s.api('POST', `/api/wordpress/passwordreset/${project.name}`) },
  ];

  it('anonymous 401, not activated 403, another student 404 (the list: 200 without the project), member and admin 200', async () => {
    stack.agent.pullableImages.add('devplein/wordpress:6');
    for (const call of calls()) {
      const anonymous = await call.send(await stack.anonymous());
      expect(anonymous.status, `${call.name} anonymous`).toBe(401);
      await anonymous.body?.cancel();
      const newcomer = await call.send(await stack.as(NOT_ACTIVATED));
      expect(newcomer.status, `${call.name} not activated`).toBe(403);
      await newcomer.body?.cancel();
      const outsider = await call.send(await stack.as(DEVELOPER));
      expect(outsider.status, `${call.name} another student`).toBe(call.outsiderStatus ?? 404);
      if (call.outsiderStatus === 200) expect(card((await outsider.json()) as UserDocker[], project.name)).toBeUndefined();
      else await outsider.body?.cancel();
      for (const email of [STUDENT, ADMIN]) {
        const answer = await call.send(await stack.as(email));
        expect(answer.status, `${call.name} ${email}`).toBe(call.memberStatus ?? 200);
        await readStream(answer, () => true);
      }
    }
    // The admin is no member: their writes on the project are in the audit trail.
    const actions = await stack.database.knex('audit_log').where({ subject_type: 'project', subject_id: String(project.id) }).pluck('action');
    expect(actions).toEqual(expect.arrayContaining(['container.create', 'container.restart']));
  });

  it('refuses another student the project’s realtime channel and signs it for the member', async () => {
    const body = (session: HttpSession) => session.json('POST', '/broadcasting/auth', { socket_id: '1234.5678', channel_name: `private-container.${project.name}` });
    expect((await body(await stack.as(DEVELOPER))).status).toBe(403);
    expect((await body(await stack.as(STUDENT))).status).toBe(200);
    expect((await body(await stack.as(ADMIN))).status).toBe(200);
  });

  it('answers 404 on a project that does not exist and 422 on bad input', async () => {
    const student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: 987654 })).status).toBe(404);
    expect((await student.json('POST', '/api/user/dockers', { id: 'x' })).status).toBe(422);
    expect((await student.json('PUT', `/api/user/dockers/${project.id}?action=explode`)).status).toBe(422);
    expect((await student.json('PUT', `/api/user/dockers/${project.id}`)).status).toBe(422);
    expect((await student.json('GET', `/api/user/container/${project.name}?tail=0`)).status).toBe(422);
    expect((await student.json('GET', `/api/user/container/${project.name}?tail=5001`)).status).toBe(422);
    expect((await student.json('GET', '/api/user/container/bestaat-niet')).status).toBe(404);
    expect((await student.json('POST', '/api/user/dockers_images', { image: 'Niet Geldig!', project_id: project.id })).status).toBe(422);
  });
});

describe('the state machine of the dockers page', () => {
  it('shows the product states, creates the container and follows the actions', async () => {
    const waiting = await stack.project({ name: 'wacht-nog', validated: null, members: [NO_GROUP] });
    const rejected = await stack.project({ name: 'afgekeurd-project', validated: false, members: [NO_GROUP] });
    const approved = await stack.project({ name: 'goedgekeurd', validated: true, members: [NO_GROUP] });
    const zoe = await stack.as(NO_GROUP);

    let list = await dockers(zoe);
    expect(card(list, waiting.name)).toMatchObject({ State: 'Nog niet goed gekeurd!', Id: null, sshCommand: null });
    expect(card(list, rejected.name)).toMatchObject({ State: 'Afgekeurd', Id: null });
    expect(card(list, approved.name)).toMatchObject({
      State: 'Nog niet gecreëerd',
      Id: null,
      Image: 'devplein/php:8.3',
      Labels: { projectId: approved.id },
      project: { id: approved.id, name: approved.name, validated: true, docker_id: IMAGE.php },
      domain: `${approved.name}.dev.devplein.test`,
      ssh: true,
      wordpress: false,
    });
    expect(card(list, approved.name)?.Users.map((user) => user.name)).toEqual(['Zoë Zonderklas']);
    // Newest first.
    const names = list.map((item) => item.project.name);
    expect(names.indexOf(approved.name)).toBeLessThan(names.indexOf(waiting.name));

    const refused = await zoe.json<{ message: string }>('POST', '/api/user/dockers', { id: waiting.id });
    expect(refused).toEqual({ status: 409, body: { message: 'Dit project is nog niet goedgekeurd.' } });
    expect((await zoe.json('POST', '/api/user/dockers', { id: rejected.id })).status).toBe(409);

    const created = await call(zoe, createUserDocker, { body: { id: approved.id } });
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ State: 'running', Names: [`/${approved.name}`] });
    expect(created[0]?.Id).toMatch(/^[0-9a-f]{64}$/);
    expect(created[0]?.sshCommand).toMatch(/^ssh student@dev\.devplein\.test -p \d+$/);
    const createCall = stack.agent.callsOf('createContainer').at(-1)?.request as Record<string, unknown>;
    expect(createCall).toMatchObject({
      projectId: approved.id,
      name: approved.name,
      domain: `${approved.name}.dev.devplein.test`,
      image: 'devplein/php:8.3',
      ownerUserId: await stack.userId(NO_GROUP),
      memberUserIds: [await stack.userId(NO_GROUP)],
      ssh: true,
      wordpress: false,
      limits: { memoryBytes: 0, nanoCpus: 0, pids: 0 },
    });
    // ssh image: the members' keys went in (Zoë has none: an empty set locks SSH).
    expect(stack.agent.authorizedKeys.get(approved.id)).toEqual([]);
    // Idempotent.
    expect((await call(zoe, createUserDocker, { body: { id: approved.id } }))[0]?.Id).toBe(created[0]?.Id);

    const act = async (action: string) => zoe.json<UserDocker[] | { message: string }>('PUT', `/api/user/dockers/${approved.id}?action=${action}`);
    expect(await act('stop')).toMatchObject({ status: 200, body: [{ State: 'exited' }] });
    const pauseExited = await act('pause');
    expect(pauseExited.status).toBe(409);
    expect((pauseExited.body as { message: string }).message).toMatch(/niet/);
    expect(await act('start')).toMatchObject({ status: 200, body: [{ State: 'running' }] });
    expect(await act('pause')).toMatchObject({ status: 200, body: [{ State: 'paused', Status: expect.stringContaining('Paused') }] });
    expect(await act('unpause')).toMatchObject({ status: 200, body: [{ State: 'running' }] });
    expect(await act('restart')).toMatchObject({ status: 200, body: [{ State: 'running' }] });

    list = await dockers(zoe);
    expect(card(list, approved.name)).toMatchObject({ State: 'running', Id: created[0]?.Id });
  });

  it('lists all the user’s containers with one ListContainers call', async () => {
    const before = stack.agent.callsOf('listContainers').length;
    await dockers(await stack.as(NO_GROUP));
    expect(stack.agent.callsOf('listContainers').length - before).toBe(1);
  });
});

describe('realtime: the relay and the approvals', () => {
  it('delivers the agent’s events, the busy mark and approve/reject to a subscriber through soketi', async () => {
    const project = await stack.project({ name: 'live-project', validated: null, members: [STUDENT] });
    const student = await stack.as(STUDENT);
    const channel = await stack.subscribe(student, project.name);
    try {
      const admin = await stack.as(ADMIN);
      expect((await admin.json('PUT', `/api/admin/projects/${project.id}`, {})).body).toEqual({ validated: true });
      await channel.waitFor('Nog niet gecreëerd');
      expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
      await channel.waitFor('running');
      expect((await student.json('PUT', `/api/user/dockers/${project.id}?action=stop`)).status).toBe(200);
      await channel.waitFor('action');
      await channel.waitFor('exited');
      expect(channel.messages.indexOf('action')).toBeLessThan(channel.messages.lastIndexOf('exited'));
      expect((await admin.json('PUT', `/api/admin/projects/${project.id}`, {})).body).toEqual({ validated: false });
      await channel.waitFor('Afgekeurd');
      expect(card(await dockers(student), project.name)?.State).toBe('Afgekeurd');
    } finally {
      channel.close();
    }
  });

  it('reconnects the event stream after the agent was gone', async () => {
    const project = await stack.project({ name: 'herstel-project', members: [STUDENT] });
    const student = await stack.as(STUDENT);
    const channel = await stack.subscribe(student, project.name);
    try {
      await stack.restartAgent();
      await waitFor(() => stack.agent.watcherCount > 0, { description: 'the relay watching again', timeoutMs: 20_000 });
      expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
      await channel.waitFor('running');
    } finally {
      channel.close();
    }
  });
});

describe('idle auto-stop', () => {
  it('reports why the agent stopped a container, to the student and in the admin table, until it starts again', async () => {
    const project = await stack.project({ name: 'stille-site', members: [STUDENT] });
    const student = await stack.as(STUDENT);
    const admin = await stack.as(ADMIN);
    expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    expect(card(await dockers(student), project.name)?.autoStop).toBeNull();
    const channel = await stack.subscribe(student, project.name);
    try {
      const stoppedAt = new Date('2026-11-24T03:15:00Z');
      const lastActivityAt = new Date('2026-11-17T01:02:03Z');
      stack.agent.autoStop(project.name, { stoppedAt, lastActivityAt, idleAfterSeconds: 7 * 86_400 });
      // The open page hears the stop and reloads its list.
      await channel.waitFor('exited');
      const stopped = card(await dockers(student), project.name);
      expect(stopped?.State).toBe('exited');
      expect(stopped?.autoStop).toEqual({ reason: 'idle', stoppedAt: stoppedAt.toISOString(), lastActivityAt: lastActivityAt.toISOString(), idleAfterSeconds: 604_800 });
      const rows = (await admin.json<Array<{ Names: string[]; autoStop: unknown }>>('GET', '/api/admin/dockers')).body;
      expect(rows.find((row) => row.Names[0] === `/${project.name}`)?.autoStop).toEqual(stopped?.autoStop);

      const started = await student.json<UserDocker[]>('PUT', `/api/user/dockers/${project.id}?action=start`);
      expect(started.body[0]?.State).toBe('running');
      expect(started.body[0]?.autoStop).toBeNull();
      expect(card(await dockers(student), project.name)?.autoStop).toBeNull();
    } finally {
      channel.close();
    }
  });
});

describe('an exit after an OOM kill', () => {
  it('tells the student why an exited container stopped, until it starts again', async () => {
    const project = await stack.project({ name: 'geheugen-vol', members: [STUDENT] });
    const student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    expect(card(await dockers(student), project.name)?.exit).toBeNull();
    const channel = await stack.subscribe(student, project.name);
    try {
      stack.agent.oomKill(project.name);
      await channel.waitFor('exited');
      const stopped = card(await dockers(student), project.name);
      expect(stopped).toMatchObject({ State: 'exited', exit: { oomKilled: true, exitCode: 137 } });
      const started = await student.json<UserDocker[]>('PUT', `/api/user/dockers/${project.id}?action=start`);
      expect(started.body[0]?.State).toBe('running');
      expect(card(await dockers(student), project.name)?.exit).toBeNull();
    } finally {
      channel.close();
    }
  });
});

describe('live stats of a running container', () => {
  let project: { id: number; name: string };
  let student: HttpSession;

  beforeAll(async () => {
    project = await stack.project({ name: 'stats-project', members: [STUDENT] });
    student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  });

  it('answers the current use and its history, and serves every tab from one agent stream', async () => {
    stack.agent.statsIntervalMs = 100;
    stack.agent.containerStats.set(project.name, { cpuPercent: 12.5, oomKilled: true, restartCount: 3 });
    const watchesBefore = stack.agent.callsOf('watchContainerStats').length;
    const tabs = await Promise.all([stack.as(STUDENT), stack.as(STUDENT), stack.as(ADMIN)]);
    const answers = await Promise.all(tabs.map((tab) => tab.json<Record<string, unknown>>('GET', `/api/user/container/${project.name}/stats`)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        status: 'live',
        cpuPercent: 12.5,
        memoryUsedBytes: 212 * 1024 * 1024,
        memoryLimitBytes: 512 * 1024 * 1024,
        pids: 5,
        oomKilled: true,
        restartCount: 3,
        history: expect.any(Array),
      });
    }
    expect(stack.agent.callsOf('watchContainerStats').length - watchesBefore).toBe(1);
    expect(stack.agent.statsWatchCount).toBe(1);
    // A later poll reads the same stream's newer sample.
    stack.agent.containerStats.set(project.name, { cpuPercent: 40 });
    await waitFor(async () => (await student.json<{ cpuPercent: number }>('GET', `/api/user/container/${project.name}/stats`)).body.cpuPercent === 40, { description: 'the newer sample', timeoutMs: 10_000 });
    expect(stack.agent.callsOf('watchContainerStats').length - watchesBefore).toBe(1);
  });

  it('says not-running for a stopped container, and unsupported for an agent older than contract 1.6.0', async () => {
    const stopped = await stack.project({ name: 'stats-gestopt', members: [STUDENT] });
    expect((await student.json('POST', '/api/user/dockers', { id: stopped.id })).status).toBe(200);
    expect((await student.json('PUT', `/api/user/dockers/${stopped.id}?action=stop`)).status).toBe(200);
    expect((await student.json('GET', `/api/user/container/${stopped.name}/stats`)).body).toEqual({ status: 'not-running' });

    const old = await stack.project({ name: 'stats-oud', members: [STUDENT] });
    expect((await student.json('POST', '/api/user/dockers', { id: old.id })).status).toBe(200);
    stack.agent.unimplementedMethods.add('watchContainerStats');
    try {
      expect((await student.json('GET', `/api/user/container/${old.name}/stats`)).body).toEqual({ status: 'unsupported' });
    } finally {
      stack.agent.unimplementedMethods.delete('watchContainerStats');
    }
  });

  it('answers 404 for a container that is not there, 422 for a bad name, 503 when the agent is away', async () => {
    expect((await student.json('GET', '/api/user/container/bestaat-niet/stats')).status).toBe(404);
    const bad = await student.json<{ errors?: Record<string, string[]> }>('GET', '/api/user/container/Niet%20Geldig!/stats');
    expect(bad.status).toBe(422);
    expect(bad.body.errors?.name).toEqual(['Ongeldige containernaam.']);
    const away = await stack.project({ name: 'stats-weg', members: [STUDENT] });
    expect((await student.json('POST', '/api/user/dockers', { id: away.id })).status).toBe(200);
    stack.agent.mode = 'unavailable';
    try {
      const answer = await student.json<{ message: string }>('GET', `/api/user/container/${away.name}/stats`);
      expect(answer.status).toBe(503);
      expect(answer.body.message).toBe(UNREACHABLE_MESSAGE);
    } finally {
      stack.agent.mode = 'ok';
    }
  });
});

describe('logs', () => {
  let project: { id: number; name: string };
  let student: HttpSession;

  beforeAll(async () => {
    project = await stack.project({ name: 'log-project', members: [STUDENT] });
    student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  });

  it('answers the last lines as text, as JSON and as a download', async () => {
    const text = await student.api('GET', `/api/user/container/${project.name}`);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe(`${project.name} started\n${project.name} warming up\n`);

    const json = await student.json<{ lines: Array<{ stream: string; text: string; time: string }> }>('GET', `/api/user/container/${project.name}?format=json&tail=1`);
    expect(json.status).toBe(200);
    expect(json.body.lines).toEqual([{ stream: 'stderr', text: `${project.name} warming up`, time: expect.any(String) }]);
    expect(stack.agent.callsOf('getContainerLogs').at(-1)?.request).toMatchObject({ tail: 1 });

    const download = await student.api('GET', `/api/user/container/${project.name}?download=1`);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${project.name}.log"`);
    expect(await download.text()).toContain('started');
  });

  it('keeps ANSI colours in the JSON lines and strips them from the download', async () => {
    const coloured = await stack.project({ name: 'ansi-project', members: [STUDENT] });
    expect((await student.json('POST', '/api/user/dockers', { id: coloured.id })).status).toBe(200);
    stack.agent.log(coloured.name, '\u001b[1;31mFOUT\u001b[0m in \u001b[38;5;208mindex.php\u001b[0m');
    const json = await student.json<{ lines: Array<{ text: string }> }>('GET', `/api/user/container/${coloured.name}?format=json&tail=1`);
    expect(json.body.lines[0]?.text).toBe('\u001b[1;31mFOUT\u001b[0m in \u001b[38;5;208mindex.php\u001b[0m');
    const download = await student.api('GET', `/api/user/container/${coloured.name}?download=1`);
    const text = await download.text();
    expect(text).toContain('FOUT in index.php\n');
    expect(text).not.toContain('\u001b');
  });

  it('follows the output as server-sent events until the container stops', async () => {
    const response = await student.api('GET', `/api/user/container/${project.name}/follow`, undefined, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    // Never compressed, even when the browser accepts it: each event must arrive at once.
    expect(response.headers.get('content-encoding')).toBeNull();
    const reading = readStream(response);
    // Lines written before the follower is registered would go nowhere: wait for it.
    await waitFor(() => stack.agent.followersOf(project.name) > 0, { description: 'the follow stream at the agent' });
    stack.agent.log(project.name, 'GET / 200', 'stdout');
    stack.agent.log(project.name, 'PHP Warning: oeps', 'stderr');
    // The stop ends the agent's stream after these lines (one gRPC stream keeps its order).
    expect((await student.json('PUT', `/api/user/dockers/${project.id}?action=stop`)).status).toBe(200);
    const text = await reading;
    const events = text
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice('data: '.length)) as { stream: string; text: string; time: string });
    expect(events.map(({ stream, text: line }) => ({ stream, text: line }))).toEqual([
      { stream: 'stdout', text: 'GET / 200' },
      { stream: 'stderr', text: 'PHP Warning: oeps' },
    ]);
  });
});

describe('POST /api/user/dockers_images (pull progress as NDJSON)', () => {
  let project: { id: number; name: string };

  beforeAll(async () => {
    project = await stack.project({ name: 'pull-project', members: [STUDENT] });
  });

  const pull = async (session: HttpSession, image: string) => {
    const response = await session.api('POST', '/api/user/dockers_images', { image, project_id: project.id });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), lines: text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>), text };
  };

  it('streams Docker’s progress and ends with done', async () => {
    const { status, type, lines } = await pull(await stack.as(STUDENT), OWN_IMAGE);
    expect(status).toBe(200);
    expect(type).toBe('application/x-ndjson; charset=utf-8');
    expect(lines[1]).toEqual({ status: 'Downloading', layerId: 'a1b2c3d4e5f6', current: 512, total: 1024, progress: '[=====>     ]' });
    expect(lines.at(-1)).toEqual({ done: true });
  });

  it('lets a student pull only the image of the project’s own option; an admin any', async () => {
    const refused = await (await stack.as(STUDENT)).json<{ errors: Record<string, string[]> }>('POST', '/api/user/dockers_images', { image: 'devplein/node:20', project_id: project.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.image).toBeDefined();
    expect((await pull(await stack.as(ADMIN), 'devplein/node:20')).lines.at(-1)).toEqual({ done: true });
  });

  it('ends with a Dutch error for an unknown image and an unreachable registry', async () => {
    const admin = await stack.as(ADMIN);
    expect((await pull(admin, 'devplein/bestaat-niet:1')).lines).toEqual([{ error: 'Image devplein/bestaat-niet:1 bestaat niet.' }]);
    const broken = await pull(admin, 'registry.kapot.test:5000/php:8');
    expect(broken.status).toBe(200);
    expect(broken.lines.at(-1)).toEqual({ error: 'De registry van registry.kapot.test:5000/php:8 is niet bereikbaar.' });
  });
});

describe('SSH keys reach the containers of the user’s ssh projects', () => {
  it('sets the union of the members’ keys after a key is added and after it is removed', async () => {
    const project = await stack.project({ name: 'ssh-project', image: IMAGE.php, members: [DEVELOPER, STUDENT] });
    const olga = await stack.as(DEVELOPER);
    expect((await olga.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    const key = generateSshKeys({ kinds: ['ed25519'] }).keys[0]?.publicKey as string;
    const added = await olga.json<Array<{ id: number }>>('POST', '/api/user/ssh_keys', { name: 'laptop', sshKey: key });
    expect(added.status).toBe(200);
    const olgaId = await stack.userId(DEVELOPER);
    await waitFor(() => (stack.agent.authorizedKeys.get(project.id) ?? []).some((entry) => entry.userId === olgaId), { description: 'keys set in the container' });
    const id = added.body.at(-1)?.id;
    expect((await olga.json('DELETE', `/api/user/ssh_keys/${id}`)).status).toBe(200);
    await waitFor(() => !(stack.agent.authorizedKeys.get(project.id) ?? []).some((entry) => entry.userId === olgaId), { description: 'key removed from the container' });
  });

  /** Olga's new key (removed again by the returned function) and her user id. */
  async function olgaWithKey(): Promise<{ olga: HttpSession; olgaId: number; key: string; removeKey: () => Promise<void> }> {
    const olga = await stack.as(DEVELOPER);
    const key = generateSshKeys({ kinds: ['ed25519'] }).keys[0]?.publicKey as string;
    const added = await olga.json<Array<{ id: number }>>('POST', '/api/user/ssh_keys', { name: 'werkplek', sshKey: key });
    expect(added.status).toBe(200);
    const id = added.body.at(-1)?.id;
    // Stored (and sent) without its comment.
    const stored = key.split(' ').slice(0, 2).join(' ');
    return { olga, olgaId: await stack.userId(DEVELOPER), key: stored, removeKey: async () => expect((await olga.json('DELETE', `/api/user/ssh_keys/${id}`)).status).toBe(200) };
  }

  const keyCallsOf = (projectId: number) => stack.agent.callsOf('setAuthorizedKeys').filter((call) => Number((call.request as { projectId: number }).projectId) === projectId);

  it('sends the members’ keys with the create, so no SetAuthorizedKeys call follows it', async () => {
    const { olga, olgaId, key, removeKey } = await olgaWithKey();
    try {
      const project = await stack.project({ name: 'ssh-in-een-keer', image: IMAGE.php, members: [DEVELOPER] });
      expect((await olga.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
      const createCall = stack.agent.callsOf('createContainer').at(-1)?.request as { authorizedKeys: Array<{ publicKey: string; userId: number }> };
      expect(createCall.authorizedKeys.map((entry) => ({ publicKey: entry.publicKey, userId: Number(entry.userId) }))).toContainEqual({ publicKey: key, userId: olgaId });
      expect(stack.agent.authorizedKeys.get(project.id)).toContainEqual({ publicKey: key, userId: olgaId });
      expect(keyCallsOf(project.id)).toEqual([]);
    } finally {
      await removeKey();
    }
  });

  it('sets the keys after the create when the agent is older than contract 1.4.0 (it ignores the keys of the create)', async () => {
    const { olga, olgaId, key, removeKey } = await olgaWithKey();
    stack.agent.keysWithCreate = false;
    try {
      const project = await stack.project({ name: 'ssh-oude-agent', image: IMAGE.php, members: [DEVELOPER] });
      expect((await olga.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
      expect(keyCallsOf(project.id)).toHaveLength(1);
      expect(stack.agent.authorizedKeys.get(project.id)).toContainEqual({ publicKey: key, userId: olgaId });
    } finally {
      stack.agent.keysWithCreate = true;
      await removeKey();
    }
  });
});

describe('the agent unreachable', () => {
  it('shows onbereikbaar (never exited), answers 503 on actions and deletes nothing', async () => {
    const project = await stack.project({ name: 'weg-agent', members: [NO_GROUP] });
    const waiting = await stack.project({ name: 'weg-wacht', validated: null, members: [NO_GROUP] });
    const zoe = await stack.as(NO_GROUP);
    expect((await zoe.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);

    stack.agent.mode = 'unavailable';
    try {
      const list = await dockers(zoe);
      expect(card(list, project.name)).toMatchObject({ State: 'onbereikbaar', Id: null });
      expect(card(list, waiting.name)?.State).toBe('Nog niet goed gekeurd!');
      expect(list.some((item) => item.State === 'exited')).toBe(false);
      expect(await zoe.json('PUT', `/api/user/dockers/${project.id}?action=stop`)).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await zoe.json('POST', '/api/user/dockers', { id: project.id })).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await zoe.json('DELETE', `/api/user/project/${project.id}`)).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await zoe.json('GET', `/api/user/container/${project.name}`)).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await zoe.json('POST', '/api/user/dockers_images', { image: OWN_IMAGE, project_id: project.id })).toEqual({
        status: 503,
        body: { message: UNREACHABLE_MESSAGE },
      });
      expect(await stack.database.knex('projects').where('id', project.id).first('id')).toBeDefined();
      expect(stack.agent.containers.has(project.name)).toBe(true);
    } finally {
      stack.agent.mode = 'ok';
    }

    // Really gone (connection refused) reads the same.
    await stack.agent.stop();
    try {
      expect(card(await dockers(zoe), project.name)?.State).toBe('onbereikbaar');
      expect((await zoe.json('PUT', `/api/user/dockers/${project.id}?action=stop`)).status).toBe(503);
    } finally {
      await stack.restartAgent();
    }
  });

  it('reads an agent slower than the deadline as unreachable', async () => {
    const project = await stack.project({ name: 'trage-agent', members: [NO_GROUP] });
    const zoe = await stack.as(NO_GROUP);
    expect((await zoe.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    stack.agent.mode = 'slow';
    stack.agent.slowMs = 4_000;
    try {
      expect(card(await dockers(zoe), project.name)?.State).toBe('onbereikbaar');
      expect((await (await stack.as(ADMIN)).json('GET', `/api/user/container/${project.name}`)).status).toBe(503);
    } finally {
      stack.agent.mode = 'ok';
    }
  });

  it('answers 502 with a Dutch message (not a state, not a 500) when the agent fails internally, and recovers', async () => {
    const project = await stack.project({ name: 'kapotte-agent', members: [NO_GROUP] });
    const zoe = await stack.as(NO_GROUP);
    stack.agent.failingMethods.add('createContainer');
    try {
      const failed = await zoe.json<{ message: string }>('POST', '/api/user/dockers', { id: project.id });
      expect(failed).toEqual({ status: 502, body: { message: AGENT_FAILED_MESSAGE } });
    } finally {
      stack.agent.failingMethods.clear();
    }
    expect((await zoe.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  });
});

describe('DELETE /api/user/project/{id} removes the container first', () => {
  it('removes the container, then the project', async () => {
    const project = await stack.project({ name: 'weg-ermee', members: [NO_GROUP] });
    const zoe = await stack.as(NO_GROUP);
    expect((await zoe.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    expect(stack.agent.containers.has(project.name)).toBe(true);
    expect((await zoe.json('DELETE', `/api/user/project/${project.id}`)).status).toBe(204);
    expect(stack.agent.containers.has(project.name)).toBe(false);
    expect(await stack.database.knex('projects').where('id', project.id).first('id')).toBeUndefined();
  });

  it('deletes a request that never had a container without asking the agent, also while it is down', async () => {
    const project = await stack.project({ name: 'nooit-gekeurd', validated: null, members: [NO_GROUP] });
    stack.agent.mode = 'unavailable';
    try {
      expect((await (await stack.as(NO_GROUP)).json('DELETE', `/api/user/project/${project.id}`)).status).toBe(204);
    } finally {
      stack.agent.mode = 'ok';
    }
  });
});
