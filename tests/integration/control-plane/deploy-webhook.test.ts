/**
 * The deploy webhook POST /api/hooks/deploy/{projectId} (issue 23), as the git servers call it:
 * no session, no CSRF token, the raw body signed with the project's webhook secret (Gitea and
 * Forgejo: hex HMAC-SHA256; GitHub: `sha256=` + hex; GitLab: the secret as a token). Bad or
 * missing signatures and unknown projects 401 without a change; pings 200; the branch filter,
 * deleted branches, the same commit twice, the rate limit, rejected projects, a renewed secret.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectDeploy, ProjectDeployPanel } from '@devplein/contract/deploys';
import type { UserDocker } from '@devplein/contract/dockers';
import { waitFor } from '../../support/clients/ports.ts';
import { ADMIN, DEVELOPER, IMAGE, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

const REPOSITORY = 'https://git.devplein.test/sam/haak.git';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

type Scheme = 'gitea' | 'forgejo' | 'github' | 'gitlab';

/** A deployable project (static image, repository, running container) and its webhook as the panel shows it. */
async function hooked(name: string, options: { validated?: boolean | null; branch?: string | null } = {}): Promise<{ id: number; url: string; secret: string }> {
  const project = await stack.project({ name, image: IMAGE.static, members: [STUDENT], repro: REPOSITORY, branch: options.branch ?? null });
  stack.agent.addManaged({ name, projectId: project.id, domain: `${name}.${SITE}`, image: 'devplein/static:1' });
  const panel = await (await stack.as(STUDENT)).json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`);
  expect(panel.status).toBe(200);
  if (options.validated !== undefined) await stack.database.knex('projects').where({ id: project.id }).update({ validated: options.validated });
  return { id: project.id, ...panel.body.webhook };
}

const commit = (digit: string) => digit.repeat(40);

function pushBody(input: { ref?: string; after: string; defaultBranch?: string; gitlab?: boolean }): string {
  const repository = { full_name: 'sam/haak', default_branch: input.defaultBranch ?? 'main' };
  return JSON.stringify({
    ref: input.ref ?? 'refs/heads/main',
    before: commit('0').replace(/^0/, '1'),
    after: input.after,
    ...(input.gitlab ? { project: { path_with_namespace: 'sam/haak', default_branch: repository.default_branch } } : { repository }),
    head_commit: { id: input.after, message: 'Nieuwe tekst op de site\n\nmet uitleg', timestamp: '2026-11-27T09:00:00Z', author: { name: 'Sam Student' } },
    commits: [{ id: input.after, message: 'Nieuwe tekst op de site', author: { name: 'Sam Student' } }],
  });
}

/** Sends `body` as `scheme` signs it (with `secret`), the event header of that server. */
async function hook(projectId: number, body: string, scheme: Scheme, secret: string | null, event = 'push'): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const hex = secret === null ? null : createHmac('sha256', secret).update(body).digest('hex');
  if (scheme === 'gitea') Object.assign(headers, { 'X-Gitea-Event': event }, hex ? { 'X-Gitea-Signature': hex } : {});
  if (scheme === 'forgejo') Object.assign(headers, { 'X-Forgejo-Event': event }, hex ? { 'X-Forgejo-Signature': hex } : {});
  if (scheme === 'github') Object.assign(headers, { 'X-GitHub-Event': event }, hex ? { 'X-Hub-Signature-256': `sha256=${hex}` } : {});
  if (scheme === 'gitlab') Object.assign(headers, { 'X-Gitlab-Event': event === 'push' ? 'Push Hook' : event }, secret ? { 'X-Gitlab-Token': secret } : {});
  const response = await fetch(`${stack.app.url}/api/hooks/deploy/${projectId}`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, headers: response.headers };
}

const deploysOf = (projectId: number) => stack.database.knex('project_deploys').where({ project_id: projectId }).orderBy('id').select<{ id: number; status: string; trigger: string; commit_hash: string | null; requested_by: number | null }[]>();

async function deployed(id: number): Promise<void> {
  await waitFor(async () => (await stack.database.knex('project_deploys').where({ id }).first<{ status: string }>())?.status === 'deployed', { description: `deploy ${id} deployed`, timeoutMs: 15_000, intervalMs: 50 });
}

describe('signatures', () => {
  it('accepts a push signed by each git server and queues a webhook deploy', async () => {
    for (const [index, scheme] of (['gitea', 'forgejo', 'github', 'gitlab'] as const).entries()) {
      const project = await hooked(`haak-${scheme}`);
      const after = commit(String(index + 1));
      const answer = await hook(project.id, pushBody({ after, gitlab: scheme === 'gitlab' }), scheme, project.secret);
      expect(answer.status, scheme).toBe(202);
      const deploy = answer.body as unknown as ProjectDeploy;
      // As accepted: queued, with the pushed commit (the queue may already be running it; a run records what it fetched).
      expect(deploy).toMatchObject({ projectId: project.id, trigger: 'webhook', status: 'queued', requestedBy: null, commit: { hash: after, subject: 'Nieuwe tekst op de site', author: 'Sam Student' } });
      await deployed(deploy.id);
      // The branch's newest commit is deployed (the push names what it expects); the fetch records what it got.
      expect(stack.agent.deployRequests.at(-1)).toMatchObject({ projectId: project.id, branch: '', commit: '' });
      const audit = await stack.database.knex('audit_log').where({ action: 'project.deploy', subject_id: String(project.id) }).first<{ actor_id: number | null; after: unknown }>();
      expect(audit?.actor_id).toBeNull();
      expect(JSON.stringify(audit?.after)).toContain('webhook');
    }
  });

  it('401 for a bad or missing signature and for a project that does not exist, and nothing changes', async () => {
    const project = await hooked('haak-fout');
    const body = pushBody({ after: commit('5') });
    const bad = [
      await hook(project.id, body, 'gitea', 'een-ander-geheim'),
      await hook(project.id, body, 'github', 'een-ander-geheim'),
      await hook(project.id, body, 'gitlab', 'een-ander-geheim'),
      await hook(project.id, body, 'gitea', null),
      await hook(987654, body, 'gitea', project.secret),
      await hook(0, body, 'gitea', project.secret),
    ];
    for (const answer of bad) expect(answer).toMatchObject({ status: 401, body: { message: 'Ongeldige of ontbrekende handtekening.' } });
    // A body changed after signing.
    const signature = createHmac('sha256', project.secret).update(body).digest('hex');
    const tampered = await fetch(`${stack.app.url}/api/hooks/deploy/${project.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Gitea-Event': 'push', 'X-Gitea-Signature': signature },
      body: body.replace('refs/heads/main', 'refs/heads/main '),
    });
    expect(tampered.status).toBe(401);
    expect(await deploysOf(project.id)).toEqual([]);
  });

  it('a renewed secret: the old one stops working at once', async () => {
    const project = await hooked('haak-nieuw');
    const renewed = await (await stack.as(STUDENT)).json<ProjectDeployPanel>('POST', `/api/user/dockers/${project.id}/webhook-secret`, {});
    expect((await hook(project.id, pushBody({ after: commit('6') }), 'gitea', project.secret)).status).toBe(401);
    expect((await hook(project.id, pushBody({ after: commit('6') }), 'gitea', renewed.body.webhook.secret)).status).toBe(202);
  });
});

describe('events and branches', () => {
  it('a ping answers 200, other events are ignored, and neither deploys', async () => {
    const project = await hooked('haak-ping');
    expect((await hook(project.id, JSON.stringify({ zen: 'Keep it logically awesome.' }), 'github', project.secret, 'ping')).status).toBe(200);
    const issue = await hook(project.id, JSON.stringify({ action: 'opened' }), 'gitea', project.secret, 'issues');
    expect(issue).toMatchObject({ status: 202, body: { ignored: expect.stringContaining('push') } });
    expect(await deploysOf(project.id)).toEqual([]);
  });

  it('only the repository’s default branch without a project branch; only the project branch with one', async () => {
    const project = await hooked('haak-tak');
    const other = await hook(project.id, pushBody({ ref: 'refs/heads/experiment', after: commit('7') }), 'gitea', project.secret);
    expect(other).toMatchObject({ status: 202, body: { ignored: expect.stringContaining('experiment') } });
    const tag = await hook(project.id, pushBody({ ref: 'refs/tags/v1.0', after: commit('7') }), 'gitea', project.secret);
    expect(tag).toMatchObject({ status: 202, body: { ignored: expect.any(String) } });
    const gone = await hook(project.id, pushBody({ after: commit('0') }), 'gitea', project.secret);
    expect(gone).toMatchObject({ status: 202, body: { ignored: expect.stringContaining('verwijderd') } });
    expect(await deploysOf(project.id)).toEqual([]);

    const develop = await hooked('haak-develop', { branch: 'develop' });
    expect((await hook(develop.id, pushBody({ after: commit('8') }), 'github', develop.secret)).status).toBe(202);
    expect(await deploysOf(develop.id)).toEqual([]);
    const pushed = await hook(develop.id, pushBody({ ref: 'refs/heads/develop', after: commit('8') }), 'github', develop.secret);
    expect(pushed.status).toBe(202);
    expect(pushed.body).toMatchObject({ branch: 'develop' });
    await deployed(Number(pushed.body.id));
    expect(stack.agent.deployRequests.at(-1)).toMatchObject({ projectId: develop.id, branch: 'develop' });
  });

  it('the same commit again: 200 with the deploy it already has, no new one', async () => {
    const project = await hooked('haak-twee');
    const body = pushBody({ after: commit('9') });
    // The git server has the pushed commit: the fetch gets it.
    const head = stack.agent.headCommit;
    stack.agent.headCommit = { ...head, hash: commit('9') };
    try {
      const first = await hook(project.id, body, 'gitea', project.secret);
      expect(first.status).toBe(202);
      // A new delivery of the same commit (another body: a repeated body is a replay, see below).
      const again = await hook(project.id, body.replace('met uitleg', 'met uitleg.'), 'gitea', project.secret);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
      await deployed(Number(first.body.id));
      // Deployed now (the same commit as fetched): still the same.
      expect((await hook(project.id, body.replace('met uitleg', 'met uitleg!'), 'gitlab', project.secret)).status).toBe(200);
      expect(await deploysOf(project.id)).toHaveLength(1);
      // A new commit deploys again.
      expect((await hook(project.id, pushBody({ after: 'ab'.repeat(20) }), 'gitea', project.secret)).status).toBe(202);
      expect(await deploysOf(project.id)).toHaveLength(2);
    } finally {
      stack.agent.headCommit = head;
    }
  });
});

describe('refusals and limits', () => {
  it('403 for a rejected or unapproved project, with no deploy', async () => {
    const rejected = await hooked('haak-afgekeurd', { validated: false });
    const waiting = await hooked('haak-wacht', { validated: null });
    for (const project of [rejected, waiting]) {
      const answer = await hook(project.id, pushBody({ after: commit('c') }), 'gitea', project.secret);
      expect(answer.status).toBe(403);
      expect(answer.body.message).toEqual(expect.any(String));
      expect(await deploysOf(project.id)).toEqual([]);
    }
  });

  it('more than 6 signed calls a minute for one project: 429 with Retry-After; another project is not held up', async () => {
    const project = await hooked('haak-vol');
    const other = await hooked('haak-rustig');
    for (let index = 0; index < 6; index++) {
      const answer = await hook(project.id, pushBody({ after: `${index}`.repeat(40) }), 'gitea', project.secret);
      expect(answer.status, `call ${index + 1}`).toBeLessThan(300);
    }
    const seventh = await hook(project.id, pushBody({ after: commit('d') }), 'gitea', project.secret);
    expect(seventh.status).toBe(429);
    expect(Number(seventh.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(seventh.body.message).toEqual(expect.stringContaining('Wacht'));
    expect((await hook(other.id, pushBody({ after: commit('d') }), 'gitea', other.secret)).status).toBe(202);
    // Unsigned calls do not use up a project's calls.
    expect((await hook(other.id, pushBody({ after: commit('e') }), 'gitea', 'fout')).status).toBe(401);
  });

  it('a body over 1 MB: 413', async () => {
    const project = await hooked('haak-groot');
    const answer = await hook(project.id, JSON.stringify({ padding: 'x'.repeat(1_100_000) }), 'gitea', project.secret);
    expect(answer.status).toBe(413);
  });
});

describe('replays and a member who leaves (issue 35)', () => {
  it('an older signed delivery replayed after a newer one is refused (409) and queues nothing', async () => {
    const project = await hooked('haak-herhaling');
    const older = pushBody({ after: commit('1') });
    expect((await hook(project.id, older, 'gitea', project.secret)).status).toBe(202);
    expect((await hook(project.id, pushBody({ after: commit('2') }), 'gitea', project.secret)).status).toBe(202);
    const replay = await hook(project.id, older, 'gitea', project.secret);
    expect(replay.status).toBe(409);
    expect(replay.body.message).toEqual(expect.stringContaining('al eerder ontvangen'));
    // The same bytes with another server's headers are the same delivery.
    expect((await hook(project.id, older, 'github', project.secret)).status).toBe(409);
    expect(await deploysOf(project.id)).toHaveLength(2);
    const stored = await stack.database.knex('deploy_hook_deliveries').where({ project_id: project.id }).select<{ body_sha256: string }[]>('body_sha256');
    expect(stored.map((row) => row.body_sha256)).toContain(createHash('sha256').update(older).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain('refs/heads');
  });

  it('deliveries older than a day are forgotten (pruned), so the table does not grow', async () => {
    const project = await hooked('haak-vergeten');
    const old = new Date(Date.now() - 25 * 3600_000);
    await stack.database.knex('deploy_hook_deliveries').insert({ project_id: project.id, body_sha256: 'f'.repeat(64), received_at: old });
    expect((await hook(project.id, JSON.stringify({ zen: 'opruimen' }), 'github', project.secret, 'ping')).status).toBe(200);
    expect(await stack.database.knex('deploy_hook_deliveries').where({ project_id: project.id, body_sha256: 'f'.repeat(64) }).first()).toBeUndefined();
  });

  it('a member who leaves: the secret is renewed, the card shows a banner until the git server signs with the new one', async () => {
    const project = await stack.project({ name: 'haak-vertrek', image: IMAGE.static, members: [STUDENT, DEVELOPER], repro: REPOSITORY });
    stack.agent.addManaged({ name: 'haak-vertrek', projectId: project.id, domain: `haak-vertrek.${SITE}`, image: 'devplein/static:1' });
    const developer = await stack.as(DEVELOPER);
    const before = (await developer.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body.webhook.secret;
    const edit = {
      name: 'haak-vertrek',
      domain: `haak-vertrek.${SITE}`,
      docker_id: IMAGE.static,
      description: 'Testproject haak-vertrek voor de container-hosting tests van devplein.',
      visible: false,
      users: [await stack.userId(DEVELOPER)],
      end_date: null,
      repro: REPOSITORY,
    };
    expect((await developer.json('PUT', `/api/user/project/${project.id}`, edit)).status).toBe(200);
    expect((await hook(project.id, pushBody({ after: commit('3') }), 'gitea', before)).status).toBe(401);
    const after = (await developer.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body.webhook.secret;
    expect(after).not.toBe(before);
    const card = async () => (await developer.json<UserDocker[]>('GET', '/api/user/dockers')).body.find((each) => each.project.id === project.id);
    expect((await card())?.deploy?.webhookNotice).toMatchObject({ reason: 'member-left', since: expect.any(String) });
    const audit = await stack.database.knex('audit_log').where({ action: 'project.webhook-secret', subject_id: String(project.id) }).first<{ after: unknown }>();
    expect(JSON.stringify(audit?.after)).toContain('member-left');
    // The git server has the new secret: the banner goes.
    expect((await hook(project.id, JSON.stringify({ zen: 'nieuw geheim' }), 'github', after, 'ping')).status).toBe(200);
    expect((await card())?.deploy?.webhookNotice).toBeNull();
  });

  it('a member whose account is deleted: the shared project’s secret is renewed too', async () => {
    const leaver = await stack.newDeveloper('Vertrekt Straks');
    const project = await stack.project({ name: 'haak-verwijderd', image: IMAGE.static, members: [STUDENT], repro: REPOSITORY });
    await stack.database.knex('project_user').insert({ project_id: project.id, user_id: leaver.id, position: 1 });
    stack.agent.addManaged({ name: 'haak-verwijderd', projectId: project.id, domain: `haak-verwijderd.${SITE}`, image: 'devplein/static:1' });
    const student = await stack.as(STUDENT);
    const before = (await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body.webhook.secret;
    expect((await (await stack.as(ADMIN)).api('DELETE', `/api/admin/users/${leaver.id}`)).status).toBe(204);
    expect((await student.json<ProjectDeployPanel>('GET', `/api/user/dockers/${project.id}/deploys`)).body.webhook.secret).not.toBe(before);
    expect((await hook(project.id, pushBody({ after: commit('4') }), 'gitea', before)).status).toBe(401);
  });
});
