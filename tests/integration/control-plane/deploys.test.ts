/**
 * Git deploys of a project (issue 23), control plane against the fake agent's DeployService:
 * who may use each route, deploy on create, Bijwerken with its realtime log and status on the
 * container channel, one deploy per project with a newer request superseding a queued one, the
 * roll back, refusals, the deploy settings (the token sealed and never sent back), the deploy
 * key, an agent too old for git deploys, the git policy of the request form, the admin table's
 * deployed commit and the rows a control-plane restart interrupted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployLogEvent, DeployUpdatedEvent, ProjectDeploy, ProjectDeployDetail, ProjectDeployPanel } from '@devplein/contract/deploys';
import type { AdminDocker, UserDocker } from '@devplein/contract/dockers';
import { DeployOutcome } from '@devplein/proto/deploy';
import { createSecretBox, deriveDevelopmentKey } from '../../../control-plane/src/crypto/secret-box.ts';
import { TEST_SESSION_SECRET } from '../../support/services/control-plane.ts';
import { migrate } from '../../../control-plane/src/db/knex.ts';
import { migrationSource } from '../../../control-plane/src/db/migration-source.ts';
import { createTestDatabase } from '../../support/services/database.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { ADMIN, DEVELOPER, IMAGE, NOT_ACTIVATED, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

const REPOSITORY = 'https://git.devplein.test/sam/site.git';
const SSH_REPOSITORY = 'git@git.devplein.test:sam/prive.git';
const TOKEN = 'glpat-Geheim-Token-1234567890';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

/** A project with a repository on the static image (web root /www) and a running container, without a first deploy. */
async function deployable(name: string, options: { repro?: string; members?: string[]; validated?: boolean | null } = {}): Promise<{ id: number; name: string }> {
  const project = await stack.project({ name, image: IMAGE.static, members: options.members ?? [STUDENT], repro: options.repro ?? REPOSITORY, validated: options.validated });
  stack.agent.addManaged({ name, projectId: project.id, domain: `${name}.${SITE}`, image: 'devplein/static:1' });
  return project;
}

const deployRow = (id: number) => stack.database.knex('project_deploys').where({ id }).first<{ status: string; failure: string | null; message: string | null; commit_hash: string | null; trigger: string }>();

async function settled(id: number, status: string): Promise<void> {
  await waitFor(async () => (await deployRow(id))?.status === status, { description: `deploy ${id} ${status} (now ${JSON.stringify(await deployRow(id))})`, timeoutMs: 15_000, intervalMs: 50 });
}

async function requestDeploy(session: HttpSession, projectId: number, body: object = {}): Promise<ProjectDeploy> {
  const { status, body: deploy } = await session.json<ProjectDeploy>('POST', `/api/user/dockers/${projectId}/deploys`, body);
  expect(status, JSON.stringify(deploy)).toBe(202);
  return deploy;
}

const requestsOf = (projectId: number) => stack.agent.deployRequests.filter((request) => request.projectId === projectId);

describe('who may use the deploy routes', () => {
  let project: { id: number; name: string };
  let deployId: number;

  beforeAll(async () => {
    project = await deployable('rollen-git');
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    deployId = deploy.id;
    await settled(deployId, 'deployed');
  });

  type Call = { method: string; path: () => string; body?: object; ok: number };
  const calls = (): Call[] => [
    { method: 'GET', path: () => `/api/user/dockers/${project.id}/deploys`, ok: 200 },
    { method: 'GET', path: () => `/api/user/dockers/${project.id}/deploys/${deployId}`, ok: 200 },
    { method: 'POST', path: () => `/api/user/dockers/${project.id}/deploys`, body: {}, ok: 202 },
    { method: 'PUT', path: () => `/api/user/dockers/${project.id}/deploy-settings`, body: { branch: null, auth: 'none' }, ok: 200 },
    { method: 'POST', path: () => `/api/user/dockers/${project.id}/webhook-secret`, body: {}, ok: 200 },
  ];

  it('anonymous 401, not activated 403, another student 404, member and admin through; a bad CSRF token 419', async () => {
    for (const call of calls()) {
      const name = `${call.method} ${call.path()}`;
      const send = (session: HttpSession, headers: Record<string, string> = {}) => session.api(call.method, call.path(), call.body, headers);
      expect((await send(await stack.anonymous())).status, `${name} anonymous`).toBe(401);
      expect((await send(await stack.as(NOT_ACTIVATED))).status, `${name} not activated`).toBe(403);
      expect((await send(await stack.as(DEVELOPER))).status, `${name} another student`).toBe(404);
      for (const email of [STUDENT, ADMIN]) expect((await send(await stack.as(email))).status, `${name} ${email}`).toBe(call.ok);
      if (call.method !== 'GET') expect((await send(await stack.as(STUDENT), { 'X-CSRF-TOKEN': 'niet-het-token' })).status, `${name} bad CSRF`).toBe(419);
    }
    await waitFor(async () => (await stack.database.knex('project_deploys').where({ project_id: project.id }).whereIn('status', ['queued', 'running']).first()) === undefined, {
      description: 'the deploys of the role checks finishing',
      timeoutMs: 15_000,
    });
  });

  it('GET /api/deploy/settings: the school policy for every activated user', async () => {
    expect((await (await stack.anonymous()).api('GET', '/api/deploy/settings')).status).toBe(401);
    expect((await (await stack.as(NOT_ACTIVATED)).api('GET', '/api/deploy/settings')).status).toBe(403);
    const { status, body } = await (await stack.as(STUDENT)).json<{ allowedHosts: string[]; allowHttp: boolean }>('GET', '/api/deploy/settings');
    expect(status).toBe(200);
    expect(body).toEqual({ allowedHosts: ['git.devplein.test', 'git.school.nl', 'localhost', '127.0.0.1'], allowHttp: false });
  });
});

describe('deploy on create and Bijwerken', () => {
  it('queues the first deploy when the container is created, without waiting for it', async () => {
    const project = await stack.project({ name: 'eerste-deploy', image: IMAGE.static, members: [STUDENT], repro: REPOSITORY });
    const student = await stack.as(STUDENT);
    const created = await student.json<UserDocker[]>('POST', '/api/user/dockers', { id: project.id });
    expect(created.status).toBe(200);
    expect(created.body[0]?.deploy).toMatchObject({ repository: REPOSITORY, branch: null });
    const first = await stack.database.knex('project_deploys').where({ project_id: project.id }).first<{ id: number; trigger: string }>();
    expect(first?.trigger).toBe('create');
    await settled(Number(first?.id), 'deployed');
    const [request] = requestsOf(project.id);
    expect(request).toMatchObject({ address: REPOSITORY, branch: '', commit: '', allowHttp: false, deployId: String(first?.id), target: { webRoot: '/www' } });
    expect(request?.allowedHosts).toContain('git.devplein.test');
    expect(request?.credentials).toBeUndefined();

    const list = await student.json<UserDocker[]>('GET', '/api/user/dockers');
    const card = list.body.find((each) => each.project.id === project.id);
    expect(card?.deploy?.current?.commit).toMatchObject({ hash: stack.agent.headCommit.hash, shortHash: stack.agent.headCommit.hash.slice(0, 7), subject: 'Eerste versie', author: 'Sam Student' });
    expect(card?.deploy?.latest?.id).toBe(Number(first?.id));
  });

  it('no deploy for a project without a repository, and none offered on an image without a web root', async () => {
    const plain = await stack.project({ name: 'zonder-repo', image: IMAGE.static, members: [STUDENT] });
    const node = await stack.project({ name: 'node-met-repo', image: IMAGE.node, members: [STUDENT], repro: REPOSITORY });
    const student = await stack.as(STUDENT);
    for (const project of [plain, node]) {
      const created = await student.json<UserDocker[]>('POST', '/api/user/dockers', { id: project.id });
      expect(created.body[0]?.deploy).toBeNull();
      expect((await student.api('GET', `/api/user/dockers/${project.id}/deploys`)).status).toBe(404);
      expect((await student.api('POST', `/api/user/dockers/${project.id}/deploys`, {})).status).toBe(409);
    }
    expect(await stack.database.knex('project_deploys').whereIn('project_id', [plain.id, node.id]).first()).toBeUndefined();
  });

  it('Bijwerken runs the deploy; its log and status changes arrive on the container channel and in the row', async () => {
    const project = await deployable('bijwerken-live');
    const student = await stack.as(STUDENT);
    const channel = await stack.subscribe(student, project.name);
    const deploy = await requestDeploy(student, project.id);
    expect(deploy).toMatchObject({ projectId: project.id, trigger: 'button', requestedBy: { id: await stack.userId(STUDENT) } });
    // The 202 shows the deploy as it was accepted, whatever the queue does with it meanwhile.
    expect(deploy.status).toBe('queued');
    const done = await channel.waitForEvent<DeployUpdatedEvent>('DeployUpdated', (event) => event.deploy.id === deploy.id && event.deploy.status === 'deployed', 'deployed');
    expect(done.deploy.commit?.hash).toBe(stack.agent.headCommit.hash);
    await channel.waitForEvent<DeployUpdatedEvent>('DeployUpdated', (event) => event.deploy.id === deploy.id && event.deploy.status === 'running', 'running');
    await channel.waitForEvent<DeployLogEvent>('DeployLog', (event) => event.deployId === deploy.id && event.lines.some((line) => line.text === 'Ophalen: 100% (2/2)' && line.percent === 100 && line.phase === 'fetch'), 'the fetch line');
    const { body: detail } = await student.json<ProjectDeployDetail>('GET', `/api/user/dockers/${project.id}/deploys/${deploy.id}`);
    expect(detail.status).toBe('deployed');
    expect(detail.log.map((line) => line.text)).toEqual(expect.arrayContaining(['Ophalen: 50% (1/2)', 'Kopiëren naar de container: 3 bestanden', 'Nieuwe versie staat online.']));
    expect(detail.log[0]).toMatchObject({ phase: 'queue', text: 'Bijwerken gevraagd.' });
    const audit = await stack.database.knex('audit_log').where({ action: 'project.deploy', subject_id: String(project.id) }).first<{ actor_id: number; after: { trigger: string } | string }>();
    expect(audit?.actor_id).toBe(await stack.userId(STUDENT));
  });

  it('a failed deploy records the outcome with the Dutch message and keeps the deployed commit as current', async () => {
    const project = await deployable('mislukte-deploy');
    const student = await stack.as(STUDENT);
    const good = await requestDeploy(student, project.id);
    await settled(good.id, 'deployed');
    stack.agent.deployScripts.set(project.id, { lines: [], outcome: DeployOutcome.DEPLOY_OUTCOME_AFTER_UPDATE_FAILED, message: 'Het commando na het bijwerken stopte met code 1.' });
    const bad = await requestDeploy(student, project.id);
    await settled(bad.id, 'failed');
    expect(await deployRow(bad.id)).toMatchObject({ failure: 'after-update-failed', message: 'Het commando na het bijwerken stopte met code 1.' });
    const card = (await student.json<UserDocker[]>('GET', '/api/user/dockers')).body.find((each) => each.project.id === project.id);
    expect(card?.deploy?.current?.id).toBe(good.id);
    expect(card?.deploy?.latest?.id).toBe(bad.id);
  });
});

describe('the queue of one project', () => {
  it('runs one deploy at a time; a newer request supersedes the queued one', async () => {
    const project = await deployable('wachtrij-git');
    const student = await stack.as(STUDENT);
    stack.agent.holdDeploys = true;
    try {
      const first = await requestDeploy(student, project.id);
      await waitFor(() => stack.agent.heldDeployCount === 1, { description: 'the first deploy held at the gate', timeoutMs: 15_000 });
      const second = await requestDeploy(student, project.id);
      const third = await requestDeploy(student, project.id);
      expect((await deployRow(second.id))?.status).toBe('superseded');
      expect((await deployRow(second.id))?.message).toBe('Er kwam een nieuwere aanvraag voordat deze aan de beurt was.');
      expect((await deployRow(third.id))?.status).toBe('queued');
      expect((await deployRow(first.id))?.status).toBe('running');
      expect(requestsOf(project.id)).toHaveLength(1);
      stack.agent.holdDeploys = false;
      stack.agent.releaseDeploys();
      await settled(third.id, 'deployed');
      expect((await deployRow(first.id))?.status).toBe('deployed');
      expect(requestsOf(project.id).map((request) => request.deployId)).toEqual([String(first.id), String(third.id)]);
    } finally {
      stack.agent.holdDeploys = false;
      stack.agent.releaseDeploys();
    }
  });

  it('terug naar deze versie deploys that deploy’s commit; another project’s deploy is refused with 422', async () => {
    const project = await deployable('terug-git');
    const other = await deployable('ander-git');
    const student = await stack.as(STUDENT);
    const old = await requestDeploy(student, project.id);
    await settled(old.id, 'deployed');
    const oldHash = stack.agent.headCommit.hash;
    stack.agent.headCommit = { ...stack.agent.headCommit, hash: 'b'.repeat(40), subject: 'Tweede versie' };
    try {
      const newer = await requestDeploy(student, project.id);
      await settled(newer.id, 'deployed');
      const back = await requestDeploy(student, project.id, { rollbackOf: old.id });
      expect(back).toMatchObject({ trigger: 'rollback', commit: { hash: oldHash } });
      await settled(back.id, 'deployed');
      expect(requestsOf(project.id).at(-1)?.commit).toBe(oldHash);
      expect((await deployRow(back.id))?.commit_hash).toBe(oldHash);

      const foreign = await requestDeploy(student, other.id);
      await settled(foreign.id, 'deployed');
      for (const rollbackOf of [foreign.id, 987654, 'x']) {
        const answer = await student.json<{ errors: Record<string, string[]> }>('POST', `/api/user/dockers/${project.id}/deploys`, { rollbackOf });
        expect(answer.status).toBe(422);
        expect(answer.body.errors.rollbackOf?.[0]).toBeTruthy();
      }
    } finally {
      stack.agent.headCommit = { ...stack.agent.headCommit, hash: 'a'.repeat(40), subject: 'Eerste versie' };
    }
  });

  it('refuses deploys of rejected and unapproved projects (403, Dutch)', async () => {
    const rejected = await deployable('afgekeurd-git', { validated: false });
    const waiting = await deployable('wacht-git', { validated: null });
    const student = await stack.as(STUDENT);
    const no = await student.json<{ message: string }>('POST', `/api/user/dockers/${rejected.id}/deploys`, {});
    expect(no).toMatchObject({ status: 403, body: { message: expect.stringContaining('afgekeurd') } });
    const later = await student.json<{ message: string }>('POST', `/api/user/dockers/${waiting.id}/deploys`, {});
    expect(later).toMatchObject({ status: 403, body: { message: expect.stringContaining('goedkeuring') } });
    expect(await stack.database.knex('project_deploys').whereIn('project_id', [rejected.id, waiting.id]).first()).toBeUndefined();
  });

  it('an agent before contract 1.7.0: the deploy fails with a clear Dutch message; the panel still answers without a key', async () => {
    const project = await deployable('oude-agent');
    const student = await stack.as(STUDENT);
    stack.agent.unimplementedMethods.add('deployRepository');
    stack.agent.unimplementedMethods.add('getDeployKey');
    try {
      const deploy = await requestDeploy(student, project.id);
      await settled(deploy.id, 'failed');
      expect(await deployRow(deploy.id)).toMatchObject({ failure: 'agent-unavailable', message: 'Deze dockerserver kan nog geen git-deploy.' });
      const panel = await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`);
      expect(panel.status).toBe(200);
      expect(panel.body).toMatchObject({ deployKey: null, deployKeyStatus: 'unknown' });
      // Making the key is refused clearly, never a 500.
      const make = await student.json<{ message: string }>('POST', `/api/user/dockers/${project.id}/deploy-key`, {});
      expect(make).toMatchObject({ status: 503, body: { message: 'Deze dockerserver kan nog geen deploy key maken.' } });
    } finally {
      stack.agent.unimplementedMethods.delete('deployRepository');
      stack.agent.unimplementedMethods.delete('getDeployKey');
    }
  });

  it('a project whose container is gone: failure no-container', async () => {
    const project = await stack.project({ name: 'zonder-container', image: IMAGE.static, members: [STUDENT], repro: REPOSITORY });
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    await settled(deploy.id, 'failed');
    expect((await deployRow(deploy.id))?.failure).toBe('no-container');
  });
});

describe('the deploy panel and settings', () => {
  it('shows the history, the webhook and the deploy key', async () => {
    const project = await deployable('paneel-git');
    const student = await stack.as(STUDENT);
    const deploy = await requestDeploy(student, project.id);
    await settled(deploy.id, 'deployed');
    const { status, body } = await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`);
    expect(status).toBe(200);
    // Reading the panel makes no deploy key (issue 35): the dev server was asked for an existing one only.
    expect(body).toMatchObject({ repository: REPOSITORY, branch: null, auth: 'none', hasToken: false, deployKey: null, deployKeyStatus: 'none' });
    expect(stack.agent.callsOf('getDeployKey').map((call) => call.request)).toContainEqual({ projectId: project.id, existingOnly: true });
    expect(stack.agent.deployKeysMade.has(project.id)).toBe(false);
    // The explicit POST makes it; the panel shows it from then on.
    const made = await student.json<ProjectDeployPanel>('POST', `/api/user/dockers/${project.id}/deploy-key`, {});
    expect(made.status).toBe(200);
    const key = { publicKey: stack.agent.deployKeyOf(project.id), fingerprint: stack.agent.deployKeyFingerprint };
    expect(made.body).toMatchObject({ deployKey: key, deployKeyStatus: 'made' });
    expect(stack.agent.deployKeysMade.has(project.id)).toBe(true);
    expect((await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body).toMatchObject({ deployKey: key, deployKeyStatus: 'made' });
    // Another student's project: 404, nothing made.
    const other = await deployable('ander-sleutel-git');
    const outsider = await stack.as(DEVELOPER);
    expect((await outsider.json('POST', `/api/user/dockers/${other.id}/deploy-key`, {})).status).toBe(404);
    expect(stack.agent.deployKeysMade.has(other.id)).toBe(false);
    expect(body.deploys.map((each) => each.id)).toEqual([deploy.id]);
    expect(body.webhook.url).toBe(`${stack.app.url}/api/hooks/deploy/${project.id}`);
    expect(body.webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    // The same secret at the next read; a new one on request.
    expect((await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body.webhook.secret).toBe(body.webhook.secret);
    const renewed = await student.json<ProjectDeployPanel>('POST', `/api/user/dockers/${project.id}/webhook-secret`, {});
    expect(renewed.body.webhook.secret).not.toBe(body.webhook.secret);
    const stored = await stack.database.knex('projects').where({ id: project.id }).first<{ webhook_secret_sealed: string }>('webhook_secret_sealed');
    expect(stored.webhook_secret_sealed).not.toContain(renewed.body.webhook.secret);
    expect(await stack.database.knex('audit_log').where({ action: 'project.webhook-secret', subject_id: String(project.id) }).first()).toBeDefined();
  });

  it('422 with Dutch field errors for bad settings', async () => {
    const project = await deployable('instellingen-git');
    const student = await stack.as(STUDENT);
    const put = (body: unknown) => student.json<{ errors: Record<string, string[]> }>('PUT', `/api/user/dockers/${project.id}/deploy-settings`, body);
    const cases: Array<[unknown, string]> = [
      [{ branch: '../main', auth: 'none' }, 'branch'],
      [{ branch: '-x', auth: 'none' }, 'branch'],
      [{ branch: null, auth: 'wachtwoord' }, 'auth'],
      [{ branch: null }, 'auth'],
      [{ branch: null, auth: 'deploy-key' }, 'auth'],
      [{ branch: null, auth: 'token' }, 'token'],
      [{ branch: null, auth: 'token', token: 'met spatie' }, 'token'],
    ];
    for (const [body, field] of cases) {
      const answer = await put(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.errors[field]?.[0], JSON.stringify(body)).toMatch(/[a-z]/);
    }
  });

  it('stores the token sealed, never sends it back, and hands it to the agent for a deploy', async () => {
    const project = await deployable('token-git');
    const student = await stack.as(STUDENT);
    const answer = await student.api('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: 'develop', auth: 'token', token: TOKEN });
    const text = await answer.text();
    expect(answer.status).toBe(200);
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text)).toMatchObject({ branch: 'develop', auth: 'token', hasToken: true });
    const row = await stack.database.knex('projects').where({ id: project.id }).first<{ deploy_branch: string }>();
    expect(row.deploy_branch).toBe('develop');
    const stored = await stack.database.knex('project_git_tokens').where({ project_id: project.id }).first<{ token_sealed: string; user_id: number; address: string }>();
    expect(stored.token_sealed).not.toContain(TOKEN);
    expect(createSecretBox(deriveDevelopmentKey(TEST_SESSION_SECRET)).open(stored.token_sealed)).toBe(TOKEN);
    expect(stored).toMatchObject({ user_id: await stack.userId(STUDENT), address: 'https://git.devplein.test/sam/site' });
    // Changing the branch keeps the stored token.
    expect((await student.json('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: 'develop', auth: 'token' })).status).toBe(200);

    const deploy = await requestDeploy(student, project.id);
    expect(deploy.branch).toBe('develop');
    await settled(deploy.id, 'deployed');
    expect(requestsOf(project.id).at(-1)).toMatchObject({ branch: 'develop', credentials: { $case: 'httpsToken', value: TOKEN } });
    for (const path of [`/api/user/dockers/${project.id}/deploys`, `/api/user/dockers/${project.id}/deploys/${deploy.id}`, '/api/user/dockers', `/api/user/project/${project.id}`]) {
      expect(await (await student.api('GET', path)).text(), path).not.toContain(TOKEN);
    }
    const audits = await stack.database.knex('audit_log').where({ subject_id: String(project.id) }).select('before', 'after');
    expect(JSON.stringify(audits)).not.toContain(TOKEN);

    // Another way of signing in drops the token.
    expect((await student.json('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: null, auth: 'none' })).status).toBe(200);
    expect(await stack.database.knex('project_git_tokens').where({ project_id: project.id }).first()).toBeUndefined();
  });

  it('a deploy key for an ssh address: the agent is asked to use it', async () => {
    const project = await deployable('sleutel-git', { repro: SSH_REPOSITORY });
    const student = await stack.as(STUDENT);
    expect((await student.json('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: null, auth: 'token', token: TOKEN })).status).toBe(422);
    expect((await student.json('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: null, auth: 'deploy-key' })).status).toBe(200);
    const deploy = await requestDeploy(student, project.id);
    await settled(deploy.id, 'deployed');
    expect(requestsOf(project.id).at(-1)).toMatchObject({ address: SSH_REPOSITORY, credentials: { $case: 'useDeployKey', value: true } });
  });
});

describe('the request form and the git policy', () => {
  const request = (overrides: object) => ({
    name: 'beleid-project',
    domain: `beleid-project.${SITE}`,
    docker_id: IMAGE.static,
    description: 'Een project om het git-beleid van de school te testen, lang genoeg.',
    visible: false,
    users: [],
    end_date: null,
    repro: REPOSITORY,
    ...overrides,
  });

  it('refuses a host outside GIT_ALLOWED_HOSTS and file:// with the Dutch reason (422 on repro)', async () => {
    const student = await stack.as(STUDENT);
    for (const repro of ['https://github.com/sam/site.git', 'file:///etc/passwd', 'ext::sh -c touch% /tmp/x', 'http://git.devplein.test/sam/site.git']) {
      const answer = await student.json<{ errors: Record<string, string[]> }>('POST', '/api/user/project', request({ repro }));
      expect(answer.status, repro).toBe(422);
      expect(answer.body.errors.repro?.[0], repro).toMatch(/[a-z]/);
    }
  });

  it('refuses a port GIT_ALLOWED_HOSTS does not name (422 on repro): the dev server would open it on the git host (issue 35)', async () => {
    const student = await stack.as(STUDENT);
    const answer = await student.json<{ errors: Record<string, string[]> }>('POST', '/api/user/project', request({ repro: 'https://git.school.nl:3306/sam/site.git' }));
    expect(answer.status).toBe(422);
    expect(answer.body.errors.repro?.[0]).toMatch(/^Poort 3306 van de Git-server git\.school\.nl is niet toegestaan; toegestaan: poort 443\./);
  });

  it('stores the branch with the request and gives it back', async () => {
    const student = await stack.as(STUDENT);
    const created = await student.json<{ id: number; branch: string | null }>('POST', '/api/user/project', request({ branch: 'develop' }));
    expect(created.status).toBe(201);
    expect(created.body.branch).toBe('develop');
    const edited = await student.json<{ branch: string | null }>('PUT', `/api/user/project/${created.body.id}`, request({ branch: null }));
    expect(edited.body.branch).toBeNull();
    const bad = await student.json<{ errors: Record<string, string[]> }>('PUT', `/api/user/project/${created.body.id}`, request({ branch: 'a..b' }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors.branch).toBeDefined();
    expect((await student.json('DELETE', `/api/user/project/${created.body.id}`)).status).toBe(204);
  });
});

describe('the admin dockers table', () => {
  it('shows the deployed commit on project rows', async () => {
    const project = await deployable('docent-ziet-git');
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    await settled(deploy.id, 'deployed');
    const { body } = await (await stack.as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers');
    const row = body.find((each) => each.projectId === project.id);
    expect(row?.deployedCommit).toMatchObject({ hash: stack.agent.headCommit.hash, shortHash: stack.agent.headCommit.hash.slice(0, 7) });
    const without = body.find((each) => each.projectId !== null && each.projectId !== project.id && each.deployedCommit === null);
    expect(without).toBeDefined();
  });
});

describe('a restart of the control plane', () => {
  it('fails the deploys a stopped process left running as interrupted, and runs the queued ones', async () => {
    const held = await deployable('herstart-git');
    const left = await deployable('achtergelaten-git');
    const student = await stack.as(STUDENT);
    stack.agent.holdDeploys = true;
    let running: ProjectDeploy;
    try {
      running = await requestDeploy(student, held.id);
      await waitFor(() => stack.agent.heldDeployCount === 1, { description: 'the deploy held at the gate', timeoutMs: 15_000 });
    } finally {
      stack.agent.holdDeploys = false;
    }
    // Rows as a process that died without a word leaves them.
    const { knex } = stack.database;
    const [dead] = await knex('project_deploys').insert({ project_id: left.id, status: 'running', trigger: 'button', started_at: new Date() }).returning<{ id: number }[]>('id');
    const [waiting] = await knex('project_deploys').insert({ project_id: left.id, status: 'queued', trigger: 'webhook' }).returning<{ id: number }[]>('id');

    await stack.app.restart();

    await settled(running.id, 'failed');
    expect(await deployRow(running.id)).toMatchObject({ failure: 'interrupted' });
    await settled(Number(dead?.id), 'failed');
    expect(await deployRow(Number(dead?.id))).toMatchObject({ failure: 'interrupted', message: expect.stringContaining('onderbroken') });
    await settled(Number(waiting?.id), 'deployed');
    stack.agent.releaseDeploys();
  });
});

describe('a stored token belongs to its address and its owner (issue 35)', () => {
  const OTHER_REPOSITORY = 'https://git.school.nl/iemand/anders.git';
  /** The request form's body for a project made with deployable(). */
  const form = (name: string, overrides: object = {}) => ({
    name,
    domain: `${name}.${SITE}`,
    docker_id: IMAGE.static,
    description: `Testproject ${name} voor de container-hosting tests van devplein.`,
    visible: false,
    users: [],
    end_date: null,
    repro: REPOSITORY,
    ...overrides,
  });
  const tokenRow = (projectId: number) => stack.database.knex('project_git_tokens').where({ project_id: projectId }).first<{ user_id: number; address: string } | undefined>();
  async function withToken(name: string, members: string[] = [STUDENT], by: HttpSession | null = null): Promise<{ id: number; name: string }> {
    const project = await deployable(name, { members });
    const answer = await (by ?? (await stack.as(members[0] as string))).json('PUT', `/api/user/dockers/${project.id}/deploy-settings`, { branch: null, auth: 'token', token: TOKEN });
    expect(answer.status).toBe(200);
    return project;
  }
  const finished = (id: number) =>
    waitFor(async () => ['deployed', 'failed'].includes((await deployRow(id))?.status ?? ''), { description: `deploy ${id} finished`, timeoutMs: 15_000, intervalMs: 50 });
  const tokenSentTo = (projectId: number) => requestsOf(projectId).filter((request) => JSON.stringify(request.credentials ?? null).includes(TOKEN)).map((request) => request.address);

  it('a student changes the repository, a teacher approves: the token is dropped (audited) and never sent to the new address', async () => {
    const project = await withToken('token-student-verhuist');
    const student = await stack.as(STUDENT);
    const edited = await student.json('PUT', `/api/user/project/${project.id}`, form(project.name, { repro: OTHER_REPOSITORY }));
    expect(edited.status).toBe(200);
    const admin = await stack.as(ADMIN);
    expect((await admin.json('PUT', `/api/admin/projects/${project.id}`, {})).status).toBe(200);
    const deploy = await requestDeploy(student, project.id);
    await finished(deploy.id);
    expect(tokenSentTo(project.id)).toEqual([]);
    expect(await deployRow(deploy.id)).toMatchObject({ failure: 'auth-failed', message: expect.stringContaining('Vul het token opnieuw in') });
    const panel = (await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body;
    expect(panel).toMatchObject({ auth: 'token', hasToken: false, token: null });
    const card = (await student.json<UserDocker[]>('GET', '/api/user/dockers')).body.find((each) => each.project.id === project.id);
    expect(card?.deploy?.tokenMissing).toBe(true);
    const audit = await stack.database.knex('audit_log').where({ action: 'project.git-token.drop', subject_id: String(project.id) }).first<{ actor_id: number; after: unknown }>();
    expect(audit?.actor_id).toBe(await stack.userId(STUDENT));
    expect(JSON.stringify(audit?.after)).toContain('repository-changed');
    const approved = await admin.json<Array<{ id: number; deploy_token: unknown }>>('GET', '/api/admin/projects?all=true');
    expect(approved.body.find((each) => each.id === project.id)?.deploy_token).toBeNull();
  });

  it('an admin changes the repository (the project stays approved): the token is not sent to the new address', async () => {
    const project = await withToken('token-admin-verhuist');
    const admin = await stack.as(ADMIN);
    expect((await admin.json('PUT', `/api/user/project/${project.id}`, form(project.name, { repro: OTHER_REPOSITORY, users: [await stack.userId(STUDENT)] }))).status).toBe(200);
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    await finished(deploy.id);
    expect(tokenSentTo(project.id)).toEqual([]);
    expect(await tokenRow(project.id)).toBeUndefined();
  });

  it('a teacher who approves with another git address drops the token too', async () => {
    const project = await withToken('token-goedkeuring-verhuist');
    await stack.database.knex('projects').where({ id: project.id }).update({ validated: null });
    expect((await (await stack.as(ADMIN)).json('PUT', `/api/admin/projects/${project.id}`, { git: OTHER_REPOSITORY })).status).toBe(200);
    expect(await tokenRow(project.id)).toBeUndefined();
  });

  it('the same address written differently keeps the token (host case, .git, slash)', async () => {
    const project = await withToken('token-zelfde-adres');
    const admin = await stack.as(ADMIN);
    const members = [await stack.userId(STUDENT)];
    expect((await admin.json('PUT', `/api/user/project/${project.id}`, form(project.name, { repro: 'https://GIT.devplein.test/sam/site/', users: members }))).status).toBe(200);
    expect(await tokenRow(project.id)).toMatchObject({ address: 'https://git.devplein.test/sam/site' });
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    await settled(deploy.id, 'deployed');
    expect(tokenSentTo(project.id)).toEqual(['https://GIT.devplein.test/sam/site/']);
  });

  it('a deploy refuses a stored token whose address differs from the repository', async () => {
    const project = await withToken('token-ander-adres');
    await stack.database.knex('project_git_tokens').where({ project_id: project.id }).update({ address: 'https://git.school.nl/iemand/anders' });
    const deploy = await requestDeploy(await stack.as(STUDENT), project.id);
    await settled(deploy.id, 'failed');
    expect(tokenSentTo(project.id)).toEqual([]);
    expect((await deployRow(deploy.id))?.message).toContain('Vul het token opnieuw in');
  });

  it('the panel names who stored the token; the approval list shows that the project deploys with it', async () => {
    const project = await withToken('token-wie');
    const student = await stack.as(STUDENT);
    const panel = (await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body;
    expect(panel.token).toMatchObject({ storedBy: { id: await stack.userId(STUDENT), name: expect.any(String) }, storedAt: expect.any(String) });
    // A new name sends it back for approval; the token stays (same address).
    expect((await student.json('PUT', `/api/user/project/${project.id}`, form('token-wie-nieuw'))).status).toBe(200);
    const awaiting = await (await stack.as(ADMIN)).json<Array<{ id: number; deploy_token: { stored_by: { id: number; name: string } } | null }>>('GET', '/api/admin/projects');
    expect(awaiting.body.find((each) => each.id === project.id)?.deploy_token).toMatchObject({ stored_by: { id: await stack.userId(STUDENT) } });
  });

  it('the token goes when its owner leaves the project, and when its owner is disabled', async () => {
    const left = await withToken('token-eigenaar-weg', [STUDENT, DEVELOPER]);
    const developer = await stack.as(DEVELOPER);
    // The developer edits the team without the student.
    expect((await developer.json('PUT', `/api/user/project/${left.id}`, form(left.name, { users: [await stack.userId(DEVELOPER)] }))).status).toBe(200);
    expect(await tokenRow(left.id)).toBeUndefined();
    expect(await stack.database.knex('audit_log').where({ action: 'project.git-token.drop', subject_id: String(left.id) }).first()).toBeDefined();

    const owner = await stack.newDeveloper('Token Eigenaar');
    const kept = await deployable('token-eigenaar-uit', { members: [STUDENT] });
    await stack.database.knex('project_user').insert({ project_id: kept.id, user_id: owner.id, position: 1 });
    expect((await owner.session.json('PUT', `/api/user/dockers/${kept.id}/deploy-settings`, { branch: null, auth: 'token', token: TOKEN })).status).toBe(200);
    expect(await tokenRow(kept.id)).toMatchObject({ user_id: owner.id });
    expect((await (await stack.as(ADMIN)).json('PUT', `/api/admin/users/${owner.id}?action=disable`)).status).toBe(200);
    expect(await tokenRow(kept.id)).toBeUndefined();
  });
});

describe('terug naar deze versie (issue 35)', () => {
  it('only to a deploy that was deployed: a superseded or failed one with a commit is refused (422)', async () => {
    const project = await deployable('terug-alleen-online');
    const student = await stack.as(STUDENT);
    const good = await requestDeploy(student, project.id);
    await settled(good.id, 'deployed');
    const rows = await stack.database
      .knex('project_deploys')
      .insert([
        { project_id: project.id, status: 'superseded', trigger: 'webhook', commit_hash: 'c'.repeat(40), finished_at: new Date() },
        { project_id: project.id, status: 'failed', trigger: 'webhook', commit_hash: 'd'.repeat(40), failure: 'fetch-failed', finished_at: new Date() },
      ])
      .returning<{ id: number }[]>('id');
    for (const row of rows) {
      const answer = await student.json<{ errors: Record<string, string[]> }>('POST', `/api/user/dockers/${project.id}/deploys`, { rollbackOf: row.id });
      expect(answer.status, String(row.id)).toBe(422);
      expect(answer.body.errors.rollbackOf?.[0]).toContain('online');
    }
  });
});

describe('migration 0019_deploy_credentials', () => {
  it('binds a stored token to the repository and to the active member who entered it; drops one nobody can be named for', async () => {
    const database = await createTestDatabase();
    try {
      const { knex } = database;
      await knex.migrate.down({ migrationSource, name: '0019_deploy_credentials' });
      const [sam, lex] = await knex('users')
        .insert([
          { name: 'Sam', name_slug: 'sam-0019', email: 'sam-0019@devplein.test' },
          { name: 'Lex', name_slug: 'lex-0019', email: 'lex-0019@devplein.test', disabled_at: new Date() },
        ])
        .returning<{ id: number }[]>('id');
      const project = (name: string, sealed: string) => ({ name, domain: `${name}.${SITE}`, description: `Project ${name} van de migratietest.`, visible: false, repro: 'https://Git.school.nl/sam/site.git', deploy_auth: 'token', git_token_sealed: sealed });
      const [kept, orphan] = await knex('projects').insert([project('token-0019', 'v1.sam'), project('wees-0019', 'v1.lex')]).returning<{ id: number }[]>('id');
      await knex('project_user').insert([
        { project_id: kept?.id, user_id: sam?.id, position: 0 },
        { project_id: orphan?.id, user_id: lex?.id, position: 0 },
      ]);
      const entered = (projectId: number | undefined, actorId: number | undefined) => ({ actor_id: actorId, action: 'project.deploy-settings', subject_type: 'project', subject_id: String(projectId), after: { auth: 'token', hasToken: true, tokenReplaced: true } });
      await knex('audit_log').insert([entered(kept?.id, sam?.id), entered(orphan?.id, lex?.id)]);
      expect(await migrate(knex)).toEqual(['0019_deploy_credentials']);
      expect(await knex('project_git_tokens').select('project_id', 'user_id', 'address', 'token_sealed')).toEqual([
        { project_id: kept?.id, user_id: sam?.id, address: 'https://git.school.nl/sam/site', token_sealed: 'v1.sam' },
      ]);
      expect(await knex.schema.hasColumn('projects', 'git_token_sealed')).toBe(false);
      await knex.migrate.down({ migrationSource, name: '0019_deploy_credentials' });
      expect(await knex('projects').orderBy('id').pluck('git_token_sealed')).toEqual(['v1.sam', null]);
    } finally {
      await database.destroy();
    }
  });
});
