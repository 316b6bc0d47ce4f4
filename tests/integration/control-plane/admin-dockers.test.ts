import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { INFRASTRUCTURE_CONTAINER_MESSAGE } from '../../../control-plane/src/agent/agent-failure.ts';
import type { AdminDocker, DockerImageOption } from '@devplein/contract/dockers';
import { ADMIN, DEVELOPER, DOCENT, IMAGE, NO_GROUP, NOT_ACTIVATED, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';


type ImageOption = DockerImageOption;

const UNREACHABLE_MESSAGE = 'De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

let stack: HostingStack;
let admin: HttpSession;

beforeAll(async () => {
  stack = await startHostingStack();
  admin = await stack.as(ADMIN);
});

afterAll(async () => {
  await stack?.stop();
});

/** A project of Zoë with a running container. */
async function runningProject(name: string): Promise<{ id: number; name: string }> {
  const project = await stack.project({ name, members: [NO_GROUP, STUDENT] });
  expect((await (await stack.as(NO_GROUP)).json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  return project;
}

async function auditActions(subjectId: string | number): Promise<string[]> {
  return stack.database.knex('audit_log').where('subject_id', String(subjectId)).orderBy('id').pluck('action');
}

describe('routes × roles of every admin container route', () => {
  it('anonymous 401, not activated 403, student 403, developer 403, admins 200', async () => {
    await runningProject('rol-container');
    stack.agent.addUnmanaged('rol-los');
    let optionCounter = 0;
    const calls: Array<{ name: string; send: (session: HttpSession) => Promise<Response>; ok: number }> = [
      { name: 'GET /api/admin/dockers', send: (s) => s.api('GET', '/api/admin/dockers'), ok: 200 },
      { name: 'GET /api/admin/dockers/{name}', send: (s) => s.api('GET', '/api/admin/dockers/rol-container'), ok: 200 },
      { name: 'PUT /api/admin/dockers/{name}?action=restart', send: (s) => s.api('PUT', '/api/admin/dockers/rol-container?action=restart'), ok: 200 },
      { name: 'POST /api/admin/dockers/bulk', send: (s) => s.api('POST', '/api/admin/dockers/bulk', { names: ['rol-container'], action: 'restart' }), ok: 200 },
      {
        name: 'PUT /api/admin/dockers/{name}/owner',
        // 409 after the first adoption: the role checks come first either way.
        send: (s) => s.api('PUT', '/api/admin/dockers/rol-los/owner', { user: 4 }),
        ok: 200,
      },
      { name: 'GET /api/admin/dockers/images', send: (s) => s.api('GET', '/api/admin/dockers/images'), ok: 200 },
      {
        name: 'POST /api/admin/dockers/images',
        send: (s) => s.api('POST', '/api/admin/dockers/images', { name: `Rol ${++optionCounter}`, image: 'devplein/rol:1', ssh: false, wordpress: false }),
        ok: 201,
      },
      {
        name: 'DELETE /api/admin/dockers/images/{id}',
        send: async (s) => {
          const [row] = await stack.database.knex('docker_images').insert({ name: `Weg ${++optionCounter}`, image: 'devplein/weg:1' }).returning<{ id: number }[]>('id');
          return s.api('DELETE', `/api/admin/dockers/images/${row?.id}`);
        },
        ok: 204,
      },
      {
        name: 'DELETE /api/admin/dockers/{name}',
        send: async (s) => {
          stack.agent.addUnmanaged('rol-weg');
          return s.api('DELETE', '/api/admin/dockers/rol-weg');
        },
        ok: 200,
      },
    ];
    let adopted = false;
    for (const call of calls) {
      expect((await call.send(await stack.anonymous())).status, `${call.name} anonymous`).toBe(401);
      expect((await call.send(await stack.as(NOT_ACTIVATED))).status, `${call.name} not activated`).toBe(403);
      expect((await call.send(await stack.as(STUDENT))).status, `${call.name} student`).toBe(403);
      expect((await call.send(await stack.as(DEVELOPER))).status, `${call.name} developer`).toBe(403);
      for (const email of [ADMIN, DOCENT]) {
        const status = (await call.send(await stack.as(email))).status;
        if (call.name.endsWith('/owner')) {
          expect(status, `${call.name} ${email}`).toBe(adopted ? 409 : 200);
          adopted = true;
        } else {
          expect(status, `${call.name} ${email}`).toBe(call.ok);
        }
      }
    }
  });
});

describe('GET /api/admin/dockers', () => {
  it('lists every container with its owner, unmanaged ones as NO OWNER', async () => {
    const project = await runningProject('lijst-container');
    stack.agent.addUnmanaged('oude-container', 'devplein-test/oud:1', 'exited');
    const { status, body } = await admin.json<AdminDocker[]>('GET', '/api/admin/dockers');
    expect(status).toBe(200);
    expect(body.find((row) => row.Names[0] === '/lijst-container')).toMatchObject({
      Image: 'devplein/php:8.3',
      State: 'running',
      user: 'Zoë Zonderklas',
      userId: await stack.userId(NO_GROUP),
      projectId: project.id,
      managed: true,
    });
    expect(body.find((row) => row.Names[0] === '/oude-container')).toMatchObject({
      State: 'exited',
      Status: expect.stringContaining('Exited'),
      user: 'NO OWNER',
      userId: null,
      projectId: null,
      managed: false,
    });
    expect((await admin.json('GET', '/api/admin/dockers/bestaat-niet')).status).toBe(404);
  });
});

describe('admin actions and removal', () => {
  it('runs an action on any container with an audit entry; 409 when the state does not fit; 422 for a bad action', async () => {
    await runningProject('actie-container');
    const stopped = await admin.json<AdminDocker[]>('PUT', '/api/admin/dockers/actie-container?action=stop');
    expect(stopped.status).toBe(200);
    expect(stopped.body[0]).toMatchObject({ State: 'exited', user: 'Zoë Zonderklas' });
    expect(await auditActions('actie-container')).toContain('container.stop');
    expect((await admin.json('PUT', '/api/admin/dockers/actie-container?action=pause')).status).toBe(409);
    expect((await admin.json('PUT', '/api/admin/dockers/actie-container?action=kapot')).status).toBe(422);
    expect((await admin.json('PUT', '/api/admin/dockers/bestaat-niet?action=start')).status).toBe(404);
  });

  it("refuses actions on the dev server's own containers with 403 and a Dutch message, not a 500", async () => {
    stack.agent.addUnmanaged('caddy-van-de-server', 'caddy:2', 'running', { 'devplein.infrastructure': 'true' });
    for (const [method, path] of [
      ['PUT', '/api/admin/dockers/caddy-van-de-server?action=stop'],
      ['DELETE', '/api/admin/dockers/caddy-van-de-server'],
    ] as const) {
      const refused = await admin.json<{ message: string }>(method, path);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.message).toBe(INFRASTRUCTURE_CONTAINER_MESSAGE);
    }
  });

  it('removes a container; the project stays and shows Nog niet gecreëerd', async () => {
    const project = await runningProject('verwijder-container');
    const removed = await admin.json<{ removed: boolean }>('DELETE', '/api/admin/dockers/verwijder-container');
    expect(removed).toEqual({ status: 200, body: { removed: true } });
    expect(await admin.json('DELETE', '/api/admin/dockers/verwijder-container')).toEqual({ status: 200, body: { removed: false } });
    expect(await stack.database.knex('projects').where('id', project.id).first('id')).toBeDefined();
    const list = await (await stack.as(NO_GROUP)).json<Array<{ Names: string[]; State: string }>>('GET', '/api/user/dockers');
    expect(list.body.find((item) => item.Names[0] === '/verwijder-container')?.State).toBe('Nog niet gecreëerd');
    expect(await auditActions('verwijder-container')).toContain('container.delete');
  });

  it('runs bulk actions per container: one failure does not stop the rest', async () => {
    await runningProject('bulk-een');
    await runningProject('bulk-twee');
    await admin.json('PUT', '/api/admin/dockers/bulk-twee?action=stop');
    const { status, body } = await admin.json<{ results: Array<{ name: string; ok: boolean; State?: string; message?: string }> }>('POST', '/api/admin/dockers/bulk', {
      names: ['bulk-een', 'bulk-twee', 'bulk-bestaat-niet'],
      action: 'pause',
    });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({ name: 'bulk-een', ok: true, State: 'paused' });
    expect(body.results[1]).toMatchObject({ name: 'bulk-twee', ok: false, message: expect.any(String) });
    expect(body.results[2]).toMatchObject({ name: 'bulk-bestaat-niet', ok: false, message: 'Deze container bestaat niet.' });
    expect(await auditActions('bulk-een')).toContain('container.pause');
    const removed = await admin.json<{ results: Array<{ ok: boolean }> }>('POST', '/api/admin/dockers/bulk', { names: ['bulk-een', 'bulk-twee'], action: 'delete' });
    expect(removed.body.results.map((result) => result.ok)).toEqual([true, true]);
    expect((await admin.json('POST', '/api/admin/dockers/bulk', { names: [], action: 'stop' })).status).toBe(422);
    expect((await admin.json('POST', '/api/admin/dockers/bulk', { names: ['x'], action: 'explode' })).status).toBe(422);
  });
});

describe('PUT /api/admin/dockers/{name}/owner (adopt)', () => {
  it('makes an approved project for the container with the user as member; 409 the second time', async () => {
    stack.agent.addUnmanaged('adoptie', 'devplein/node:20');
    const sam = await stack.userId(STUDENT);
    const adopted = await admin.json<AdminDocker>('PUT', '/api/admin/dockers/adoptie/owner', { user: sam });
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ user: 'Sam Student', userId: sam, managed: false });
    const project = await stack.database.knex('projects').where('name', 'adoptie').first('id', 'domain', 'validated', 'docker_image_id');
    expect(project).toMatchObject({ domain: `adoptie.${SITE}`, validated: true, docker_image_id: IMAGE.node });
    expect(adopted.body.projectId).toBe(project.id);
    expect(await auditActions(project.id)).toContain('container.adopt');
    expect((await admin.json('PUT', '/api/admin/dockers/adoptie/owner', { user: sam })).status).toBe(409);
    // A managed container already belongs to its project.
    await runningProject('al-beheerd');
    expect((await admin.json('PUT', '/api/admin/dockers/al-beheerd/owner', { user: sam })).status).toBe(409);
    stack.agent.addUnmanaged('adoptie-twee');
    expect((await admin.json('PUT', '/api/admin/dockers/adoptie-twee/owner', { user: 'x' })).status).toBe(422);
    expect((await admin.json('PUT', '/api/admin/dockers/adoptie-twee/owner', { user: 999999 })).status).toBe(422);
    // Docker names that are no project name would make a project (and a proxy domain) the rules
    // never allow: refused, nothing stored (found by tests/property).
    for (const name of ['Oude_Site', 'oud.v2', 'a_b']) {
      stack.agent.addUnmanaged(name);
      const refused = await admin.json<{ errors: Record<string, string[]> }>('PUT', `/api/admin/dockers/${name}/owner`, { user: sam });
      expect(refused.status, name).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['name']);
      expect(await stack.database.knex('projects').where('name', name).first('id')).toBeUndefined();
    }
    // The member now sees the adopted container on the dockers page.
    const list = await (await stack.as(STUDENT)).json<Array<{ Names: string[]; State: string }>>('GET', '/api/user/dockers');
    expect(list.body.find((item) => item.Names[0] === '/adoptie')).toBeDefined();
  });
});

describe('image options /api/admin/dockers/images', () => {
  it('lists, creates (422 on bad input) and deletes (409 while used) with audit entries', async () => {
    const list = await admin.json<ImageOption[]>('GET', '/api/admin/dockers/images');
    expect(list.status).toBe(200);
    expect(list.body.find((option) => option.id === IMAGE.php)).toMatchObject({ name: 'PHP 8.3 + Apache', image: 'devplein/php:8.3', ssh: true, wordpress: false });
    expect(list.body.find((option) => option.id === IMAGE.php)?.projects).toBeGreaterThan(0);

    for (const bad of [
      { name: 'x', image: 'devplein/x:1' },
      { name: 'Ruby', image: 'Niet Geldig' },
      { name: 'Ruby', image: 'devplein/ruby:3', ssh: 'ja' },
      { name: 'PHP 8.3 + Apache', image: 'devplein/php:8.3' },
    ]) {
      const answer = await admin.json<{ errors: Record<string, string[]> }>('POST', '/api/admin/dockers/images', bad);
      expect(answer.status, JSON.stringify(bad)).toBe(422);
      expect(Object.keys(answer.body.errors).length).toBeGreaterThan(0);
    }

    const created = await admin.json<ImageOption>('POST', '/api/admin/dockers/images', { name: 'Ruby 3', image: '127.0.0.1:5000/devplein/ruby:3.3', ssh: true, wordpress: false });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Ruby 3', image: '127.0.0.1:5000/devplein/ruby:3.3', ssh: true, wordpress: false, projects: 0 });
    expect(await auditActions(created.body.id)).toContain('docker-image.create');
    expect((await admin.json<Array<{ id: number; name: string }>>('GET', '/api/dockers')).body).toContainEqual({ id: created.body.id, name: 'Ruby 3' });

    await stack.project({ name: 'ruby-project', image: created.body.id, members: [STUDENT] });
    const inUse = await admin.json<{ message: string }>('DELETE', `/api/admin/dockers/images/${created.body.id}`);
    expect(inUse.status).toBe(409);
    await stack.database.knex('projects').where('name', 'ruby-project').delete();
    expect((await admin.api('DELETE', `/api/admin/dockers/images/${created.body.id}`)).status).toBe(204);
    expect(await auditActions(created.body.id)).toContain('docker-image.delete');
    expect((await admin.json('DELETE', `/api/admin/dockers/images/${created.body.id}`)).status).toBe(404);
    expect((await admin.json('DELETE', '/api/admin/dockers/images/1')).status).toBe(409);
    // The :name routes do not swallow the images path.
    expect((await admin.json('DELETE', '/api/admin/dockers/images')).status).toBe(404);
  });
});

describe('admin project delete and the agent unreachable', () => {
  it('removes the container before the project; 503 keeps both while the agent is down', async () => {
    const project = await runningProject('admin-weg');
    stack.agent.mode = 'unavailable';
    try {
      expect(await admin.json('DELETE', `/api/admin/projects/${project.id}`)).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await admin.json('GET', '/api/admin/dockers')).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await admin.json('PUT', '/api/admin/dockers/admin-weg?action=stop')).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      expect(await admin.json('DELETE', '/api/admin/dockers/admin-weg')).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
      const bulk = await admin.json<{ results: Array<{ ok: boolean; message: string }> }>('POST', '/api/admin/dockers/bulk', { names: ['admin-weg'], action: 'stop' });
      expect(bulk.body.results).toEqual([{ name: 'admin-weg', ok: false, message: UNREACHABLE_MESSAGE }]);
      expect(await stack.database.knex('projects').where('id', project.id).first('id')).toBeDefined();
    } finally {
      stack.agent.mode = 'ok';
    }
    expect(stack.agent.containers.has('admin-weg')).toBe(true);
    expect((await admin.api('DELETE', `/api/admin/projects/${project.id}`)).status).toBe(204);
    expect(stack.agent.containers.has('admin-weg')).toBe(false);
    expect(await stack.database.knex('projects').where('id', project.id).first('id')).toBeUndefined();
  });
});
