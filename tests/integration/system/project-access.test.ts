/**
 * A project that is not approved cannot run (issue 15): a reject, or a student's edit that sends
 * an approved project back to awaiting approval (a change of what runs: name, domain, image,
 * repository), stops its container and removes its route
 * (never the container or its data); start, restart and unpause answer 403 with a Dutch reason
 * for students and admins alike; approving again lets it start. A dev server that does not
 * answer at the decision is caught up by the control plane's reconcile. The public wall and the
 * thumbnails show approved, visible projects only. Against the fake agent; the real-Docker
 * proof is tests/e2e/project-access.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DOCENT, IMAGE, NO_GROUP, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { waitFor } from '../../support/clients/ports.ts';

let stack: HostingStack;
let admin: HttpSession;
let student: HttpSession;

beforeAll(async () => {
  // The reconcile of unapproved containers runs every second here (default: every minute).
  stack = await startHostingStack({ env: { UNAPPROVED_RECONCILE_CRON: '* * * * * *', THUMBNAIL_CRON: 'off' } });
  admin = await stack.as(ADMIN);
  student = await stack.as(STUDENT);
});

afterAll(async () => {
  await stack?.stop();
});

const domainOf = (name: string): string => `${name}.${SITE}`;

/** An approved project of the student with its container made (running) and its route in place. */
async function runningProject(name: string): Promise<{ id: number; name: string }> {
  const project = await stack.project({ name, members: [STUDENT], image: IMAGE.static });
  expect((await student.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  stack.agent.routes.set(domainOf(name), { domain: domainOf(name), upstream: `127.0.0.1:8${project.id}`, projectId: project.id } as never);
  return project;
}

const stateOf = (name: string): string | undefined => stack.agent.containers.get(name)?.state;

async function act(session: HttpSession, projectId: number, action: string): Promise<{ status: number; body: { message?: string } }> {
  return session.json<{ message?: string }>('PUT', `/api/user/dockers/${projectId}?action=${action}`);
}

describe('a rejected project', () => {
  it('is stopped and loses its route on the reject, keeps its container, and cannot start, restart or unpause until approved again', async () => {
    const project = await runningProject('toegang-afgekeurd');
    const removesBefore = stack.agent.callsOf('removeContainer').length;

    const reject = await admin.json<{ validated: boolean }>('PUT', `/api/admin/projects/${project.id}`, {});
    expect(reject).toEqual({ status: 200, body: { validated: false } });
    expect(stateOf(project.name), 'the container is stopped by the reject').toBe('exited');
    expect(stack.agent.routes.has(domainOf(project.name)), 'its route is gone').toBe(false);
    expect(stack.agent.containers.has(project.name), 'the container (and its data) stays').toBe(true);
    expect(stack.agent.callsOf('removeContainer').length).toBe(removesBefore);

    for (const action of ['start', 'restart', 'unpause']) {
      const answer = await act(student, project.id, action);
      expect(answer.status, `student ${action}`).toBe(403);
      expect(answer.body.message).toBe('Dit project is afgekeurd: de container kan niet starten. Vraag een docent het project opnieuw goed te keuren.');
      expect((await act(admin, project.id, action)).status, `admin ${action} through the student API`).toBe(403);
      const byName = await admin.json<{ message?: string }>('PUT', `/api/admin/dockers/${project.name}?action=${action}`);
      expect(byName.status, `admin ${action} by name`).toBe(403);
      expect(byName.body.message).toMatch(/afgekeurd/);
    }
    const bulk = await admin.json<{ results: Array<{ name: string; ok: boolean; message?: string }> }>('POST', '/api/admin/dockers/bulk', { names: [project.name], action: 'start' });
    expect(bulk.body.results).toEqual([{ name: project.name, ok: false, message: expect.stringMatching(/afgekeurd/) }]);
    expect(stateOf(project.name), 'nothing started it').toBe('exited');
    // Stopping (and the logs) stay possible.
    expect((await act(student, project.id, 'stop')).status).toBe(200);

    const approve = await admin.json<{ validated: boolean }>('PUT', `/api/admin/projects/${project.id}`, {});
    expect(approve.body).toEqual({ validated: true });
    const start = await act(student, project.id, 'start');
    expect(start.status).toBe(200);
    expect(stateOf(project.name)).toBe('running');
  });

  it('that was paused is stopped as well', async () => {
    const project = await runningProject('toegang-gepauzeerd');
    expect((await act(student, project.id, 'pause')).status).toBe(200);
    expect((await admin.json('PUT', `/api/admin/projects/${project.id}`, {})).status).toBe(200);
    expect(stateOf(project.name)).toBe('exited');
  });
});

describe('an approved project a student edits', () => {
  async function edit(project: { id: number; name: string }, changes: Record<string, unknown>): Promise<{ status: number; body: { validated?: boolean | null } }> {
    return student.json('PUT', `/api/user/project/${project.id}`, {
      name: project.name,
      domain: domainOf(project.name),
      docker_id: IMAGE.static,
      description: 'Een project om de toegang van devplein mee te proberen, lang genoeg.',
      visible: false,
      repro: '',
      end_date: null,
      users: [],
      ...changes,
    });
  }

  it('keeps its approval, and keeps running, when only the description, members or visibility change', async () => {
    const project = await runningProject('toegang-tekst');
    const edited = await edit(project, { description: 'Een nieuwe beschrijving van dit project, lang genoeg voor de regels.', visible: true, users: [await stack.userId(NO_GROUP)] });
    expect(edited.status).toBe(200);
    expect(edited.body.validated).toBe(true);
    expect(stateOf(project.name)).toBe('running');
    expect(stack.agent.routes.has(domainOf(project.name))).toBe(true);
  });

  it('goes back to awaiting approval when what runs changes (image, repository), is stopped, loses its route, and cannot start until approved', async () => {
    const project = await runningProject('toegang-bewerkt');
    const edited = await edit(project, { docker_id: IMAGE.php });
    expect(edited.status).toBe(200);
    expect(edited.body.validated).toBeNull();
    expect(stateOf(project.name)).toBe('exited');
    expect(stack.agent.routes.has(domainOf(project.name))).toBe(false);
    const start = await act(student, project.id, 'start');
    expect(start.status).toBe(403);
    expect(start.body.message).toBe('Dit project wacht op goedkeuring door een docent: de container kan pas starten als het is goedgekeurd.');

    expect((await (await stack.as(DOCENT)).json('PUT', `/api/admin/projects/${project.id}`, {})).body).toEqual({ validated: true });
    expect((await act(student, project.id, 'start')).status).toBe(200);
    expect((await edit(project, { docker_id: IMAGE.php, repro: 'https://git.devplein.test/sam/toegang.git' })).body.validated).toBeNull();
  });
});

describe('a dev server that does not answer at the decision', () => {
  it('keeps the decision, and the reconcile stops the container and removes its route once the agent answers again', async () => {
    const project = await runningProject('toegang-later');
    stack.agent.mode = 'unavailable';
    try {
      const reject = await admin.json<{ validated: boolean }>('PUT', `/api/admin/projects/${project.id}`, {});
      expect(reject).toEqual({ status: 200, body: { validated: false } });
      expect(stateOf(project.name)).toBe('running');
    } finally {
      stack.agent.mode = 'ok';
    }
    await waitFor(() => stateOf(project.name) === 'exited' && !stack.agent.routes.has(domainOf(project.name)), {
      description: 'the reconcile to stop the rejected project’s container',
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    expect(stack.agent.containers.has(project.name)).toBe(true);
  });

  it('stops a container of an unapproved project that was started behind the control plane’s back', async () => {
    const project = await stack.project({ name: 'toegang-stiekem', members: [NO_GROUP], validated: false });
    stack.agent.addManaged({ name: project.name, projectId: project.id, domain: domainOf(project.name) });
    await waitFor(() => stateOf(project.name) === 'exited', { description: 'the reconcile to stop it', timeoutMs: 20_000, intervalMs: 100 });
  });
});

describe('the public wall and the thumbnails', () => {
  it('show approved, visible projects only', async () => {
    const shown = await stack.project({ name: 'muur-goed', members: [NO_GROUP] });
    const awaiting = await stack.project({ name: 'muur-wacht', members: [NO_GROUP], validated: null });
    const rejected = await stack.project({ name: 'muur-af', members: [NO_GROUP], validated: false });
    const hidden = await stack.project({ name: 'muur-verborgen', members: [NO_GROUP] });
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    for (const project of [shown, awaiting, rejected]) {
      await stack.database.knex('projects').where('id', project.id).update({ visible: true });
    }
    for (const project of [shown, awaiting, rejected, hidden]) {
      await stack.database.knex('thumbnails').insert({ project_id: project.id, png, etag: `e${project.id}`, captured_at: new Date(), last_attempt_at: new Date() });
    }
    const anonymous = await stack.anonymous();
    const { body } = await anonymous.json<Array<{ name: string }>>('GET', '/api/sites');
    const names = body.map((site) => site.name);
    expect(names).toContain('muur-goed');
    expect(names).not.toContain('muur-wacht');
    expect(names).not.toContain('muur-af');
    expect(names).not.toContain('muur-verborgen');
    expect((await anonymous.raw('/misc/browserimg2/small/muur-goed_s.png')).status).toBe(200);
    for (const name of ['muur-wacht', 'muur-af', 'muur-verborgen']) {
      expect((await anonymous.raw(`/misc/browserimg2/small/${name}_s.png`)).status, name).toBe(404);
    }
  });
});
