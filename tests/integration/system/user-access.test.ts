/**
 * Access ends when it should (issue 15, "Trust, part 1"), through the real control plane and the
 * fake agent: what a member's removal from a project, disable, the developer flag, verify after
 * a disable and delete make the dev servers do; a dev server that does not answer (the change
 * stands, the admin is told in Dutch what is not done, the retry job finishes it); an agent too
 * old for a step (reported, retried, never pretended); the audit entries; who may set the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../../support/clients/admin-cli.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { ed25519PublicKey } from '../../support/fixtures/ssh-keys.ts';
import { waitFor } from '../../support/clients/ports.ts';
import type { AdminUserJson } from '@devplein/contract/users';
import type { ProjectJson } from '@devplein/contract/projects';

let stack: HostingStack;

beforeAll(async () => {
  // The retry job every second, so a test waits for it instead of a minute.
  stack = await startHostingStack({ env: { HOST_ACCESS_RETRY_CRON: '*/1 * * * * *' } });
  // The seed's VPN configurations hold pool addresses: the fake agent has their peers, as a real one would.
  for (const row of await stack.database.knex('vpn_configs').select<Array<{ public_key: string; address: string; identifier: string; user_id: number }>>('public_key', 'address', 'identifier', 'user_id')) {
    stack.agent.peers.set(row.public_key, { publicKey: row.public_key, address: row.address, identifier: row.identifier, userId: row.user_id, latestHandshake: undefined, receivedBytes: 0, sentBytes: 0 });
  }
});

afterAll(async () => {
  await stack?.stop();
});

let made = 0;
const letters = (n: number): string => [...n.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join('');

/** A fresh activated developer who signed in, added an SSH key and (optionally) made a database and a VPN configuration. */
async function developer(options: { database?: boolean; vpn?: boolean } = {}): Promise<{ id: number; email: string; session: HttpSession; key: string; dbUser?: string; peerKey?: string; address?: string }> {
  made += 1;
  const { id, email, session } = await stack.newDeveloper(`Student ${letters(made)}`);
  const key = ed25519PublicKey(`laptop-${made}`);
  expect((await session.json('POST', '/api/user/ssh_keys', { name: 'laptop', sshKey: key })).status).toBe(200);
  const result: Awaited<ReturnType<typeof developer>> = { id, email, session, key: key.split(' ').slice(0, 2).join(' ') };
  if (options.database) {
    expect((await session.json('POST', '/api/user/databases', { db: 'abc' })).status).toBe(200);
    result.dbUser = `u${id}_abc`;
  }
  if (options.vpn) {
    expect((await session.json('POST', '/api/vpn')).status).toBe(200);
    const peer = await stack.database.knex('vpn_configs').where({ user_id: id }).first<{ public_key: string; address: string }>('public_key', 'address');
    result.peerKey = peer.public_key;
    result.address = peer.address;
  }
  return result;
}

/** A project with these members (ids; the first owns it), approved, and its container made through the API. */
async function projectWithContainer(members: Array<{ id: number; session: HttpSession }>): Promise<{ id: number; name: string }> {
  made += 1;
  const name = `toegang-${letters(made * 7919)}`;
  const [row] = await stack.database
    .knex('projects')
    .insert({ name, domain: `${name}.dev.devplein.test`, description: `Project ${name} voor de toegangstests van devplein, lang genoeg.`, visible: false, docker_image_id: 2, validated: true })
    .returning<{ id: number }[]>('id');
  const id = Number(row?.id);
  for (const [position, member] of members.entries()) await stack.database.knex('project_user').insert({ project_id: id, user_id: member.id, position });
  expect((await members[0]!.session.json('POST', '/api/user/dockers', { id })).status).toBe(200);
  return { id, name };
}

const keysIn = (projectId: number): string[] => (stack.agent.authorizedKeys.get(projectId) ?? []).map((key) => key.publicKey);
const containerOf = (projectId: number) => [...stack.agent.containers.values()].find((container) => container.projectId === projectId);
const callsOf = (method: string) => stack.agent.callsOf(method).map((call) => call.request as Record<string, unknown>);

async function auditOf(action: string, subjectId: number) {
  return stack.database
    .knex('audit_log')
    .where({ action, subject_id: String(subjectId) })
    .orderBy('id')
    .select<Array<{ actor_id: number | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>>('actor_id', 'before', 'after');
}

const pendingOf = (userId: number) => stack.database.knex('pending_host_access').where({ user_id: userId }).first('not_done', 'attempts', 'reason');

async function admin(): Promise<HttpSession> {
  return stack.as(ADMIN);
}

describe('removing a member from a project', () => {
  it('re-syncs the container’s keys to the remaining members at once and ends the removed member’s SSH sessions (student edit)', async () => {
    const owner = await developer();
    const leaver = await developer();
    const project = await projectWithContainer([owner, leaver]);
    expect(keysIn(project.id)).toEqual([owner.key, leaver.key]);
    stack.agent.sshSessions.set(project.id, [owner.id, leaver.id]);

    const current = (await owner.session.json<ProjectJson>('GET', `/api/user/project/${project.id}`)).body;
    const edited = await owner.session.json<ProjectJson>('PUT', `/api/user/project/${project.id}`, { ...current, users: [owner.id] });
    expect(edited.status).toBe(200);
    expect(keysIn(project.id)).toEqual([owner.key]);
    expect(callsOf('endSshSessions').filter((call) => call.projectId === project.id).at(-1)).toEqual({ projectId: project.id, userIds: [leaver.id] });
    expect(stack.agent.sshSessions.get(project.id)).toEqual([owner.id]);
    const [audit] = await auditOf('project.access', project.id);
    expect(audit?.actor_id).toBe(owner.id);
    expect(audit?.after).toMatchObject({ reason: 'project.members', ended_sessions_of: [leaver.id], hosts: { dev1: { ssh_keys_synced: [project.name] } } });
    expect(await stack.database.knex('pending_host_access').where({ project_id: project.id })).toHaveLength(0);
  });

  it('does the same when an admin edits the members; a project that never had a container needs no agent', async () => {
    const first = await developer();
    const second = await developer();
    const project = await projectWithContainer([first, second]);
    const current = (await (await admin()).json<ProjectJson[]>('GET', '/api/admin/projects?all=true')).body.find((p) => p.id === project.id)!;
    expect((await (await admin()).json('PUT', `/api/user/project/${project.id}`, { ...current, users: [second.id] })).status).toBe(200);
    expect(keysIn(project.id)).toEqual([second.key]);
    expect(callsOf('endSshSessions').filter((call) => call.projectId === project.id).at(-1)).toEqual({ projectId: project.id, userIds: [first.id] });

    const request = await stack.project({ name: `nooit-${letters(++made * 31)}`, validated: null, members: [DEVELOPER, STUDENT] });
    const before = stack.agent.calls.length;
    const body = (await (await stack.as(DEVELOPER)).json<ProjectJson>('GET', `/api/user/project/${request.id}`)).body;
    expect((await (await stack.as(DEVELOPER)).json('PUT', `/api/user/project/${request.id}`, { ...body, users: [] })).status).toBe(200);
    // About this project (the overview's sampler lists every container once a minute, whatever this test does).
    const aboutRequest = (request_: unknown): boolean => {
      const fields = request_ as { projectId?: number; projectIds?: number[] };
      return fields.projectId === request.id || (fields.projectIds ?? []).includes(request.id);
    };
    expect(stack.agent.calls.slice(before).filter((call) => ['setAuthorizedKeys', 'endSshSessions', 'listContainers'].includes(call.method) && aboutRequest(call.request))).toEqual([]);
  });
});

describe('disabling a user, and activating them again', () => {
  it('locks their databases (connections killed), removes their VPN peer, takes their keys out of every container, ends their sessions and stops their own containers', async () => {
    const leaver = await developer({ database: true, vpn: true });
    const partner = await developer();
    const shared = await projectWithContainer([partner, leaver]);
    const own = await projectWithContainer([leaver]);
    stack.agent.sshSessions.set(shared.id, [leaver.id, partner.id]);
    stack.agent.openConnections.set(leaver.dbUser!, 2);
    expect(stack.agent.peers.has(leaver.peerKey!)).toBe(true);

    const { status, body } = await (await admin()).json<AdminUserJson>('PUT', `/api/admin/users/${leaver.id}?action=disable`);
    expect(status).toBe(200);
    expect(body.disabled_at).not.toBeNull();
    expect(body.access_not_done).toBeNull();
    expect((await leaver.session.json('GET', '/api/user')).status).toBe(401);
    expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(true);
    expect(stack.agent.openConnections.has(leaver.dbUser!)).toBe(false);
    expect(stack.agent.peers.has(leaver.peerKey!)).toBe(false);
    expect(keysIn(shared.id)).toEqual([partner.key]);
    expect(keysIn(own.id)).toEqual([]);
    expect(stack.agent.sshSessions.get(shared.id)).toEqual([partner.id]);
    expect(containerOf(own.id)?.state).toBe('exited');
    expect(containerOf(shared.id)?.state).toBe('running');

    const [audit] = await auditOf('user.access.revoke', leaver.id);
    expect(audit?.after).toMatchObject({
      reason: 'user.disable',
      not_done: [],
      hosts: {
        dev1: {
          databases_locked: [leaver.dbUser],
          connections_killed: 2,
          vpn_peer_removed: leaver.address,
          containers_stopped: [own.name],
        },
      },
    });
    expect((audit?.after?.hosts as { dev1: { ssh_keys_synced: string[] } }).dev1.ssh_keys_synced.sort()).toEqual([own.name, shared.name].sort());

    // A later sync of the project (the partner adds a key) keeps the disabled member's key out.
    expect((await partner.session.json('POST', '/api/user/ssh_keys', { name: 'desktop', sshKey: ed25519PublicKey('desktop') })).status).toBe(200);
    await waitFor(() => keysIn(shared.id).length === 2, { description: 'the partner’s second key in the container' });
    expect(keysIn(shared.id)).not.toContain(leaver.key);

    // Verify: accounts unlocked, the same peer back (key and address), keys back; the stopped container stays stopped.
    const verified = await (await admin()).json<AdminUserJson>('PUT', `/api/admin/users/${leaver.id}?action=verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ disabled_at: null, access_not_done: null });
    expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(false);
    expect(stack.agent.peers.get(leaver.peerKey!)?.address).toBe(leaver.address);
    expect(keysIn(shared.id)).toContain(leaver.key);
    expect(keysIn(own.id)).toEqual([leaver.key]);
    expect(containerOf(own.id)?.state).toBe('exited');
    const [restore] = await auditOf('user.access.restore', leaver.id);
    expect(restore?.after).toMatchObject({ reason: 'user.verify', hosts: { dev1: { databases_unlocked: [leaver.dbUser], vpn_peer_restored: leaver.address } } });
  });

  it('keeps a disabled student’s VPN address for them: a new configuration meanwhile gets another one', async () => {
    const leaver = await developer({ vpn: true });
    expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=disable`)).status).toBe(200);
    const newcomer = await developer({ vpn: true });
    expect(newcomer.address).not.toBe(leaver.address);
    expect(stack.agent.peers.get(newcomer.peerKey!)?.address).toBe(newcomer.address);
    expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=verify`)).status).toBe(200);
    expect(stack.agent.peers.get(leaver.peerKey!)?.address).toBe(leaver.address);
  });

  it('is given back by the retry job when the sysadmin enables the account again with devplein admin create', async () => {
    const leaver = await developer({ database: true, vpn: true });
    expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=disable`)).status).toBe(200);
    expect(stack.agent.peers.has(leaver.peerKey!)).toBe(false);

    // The command line reaches no dev server: it leaves an intent the running control plane carries out.
    const run = await runAdminCli(['create', '--email', leaver.email], { DATABASE_URL: stack.database.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // Done means the intent is gone and the restore is recorded (the audit row can come a moment after: CI4 with a busy core).
    await waitFor(async () => (await pendingOf(leaver.id)) === undefined && (await auditOf('user.access.restore', leaver.id)).length > 0, {
      description: 'the retry job to finish the intent and record the restore',
      timeoutMs: 20_000,
    });
    expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(false);
    expect(stack.agent.peers.get(leaver.peerKey!)?.address).toBe(leaver.address);
    const [restore] = await auditOf('user.access.restore', leaver.id);
    expect(restore?.after).toMatchObject({ reason: 'retry: user.verify', hosts: { dev1: { databases_unlocked: [leaver.dbUser], vpn_peer_restored: leaver.address } } });
    expect((await leaver.session.json('GET', '/api/user')).status).toBe(401);
  });

  it('keeps the intent when its audit entry cannot be written, so the retry job does it again and the restore is recorded', async () => {
    const leaver = await developer({ vpn: true });
    expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=disable`)).status).toBe(200);
    // The audit log refuses this user's restore entry, as a crash between the two writes would lose it.
    const knex = stack.database.knex;
    const trigger = `refuse_restore_audit_${leaver.id}`;
    await knex.raw(`
      create function ${trigger}() returns trigger language plpgsql as $$
      begin
        if new.action = 'user.access.restore' and new.subject_id = '${leaver.id}' then raise exception 'audit refused by the test'; end if;
        return new;
      end $$;
      create trigger ${trigger} before insert on audit_log for each row execute function ${trigger}();`);
    const restores = () => stack.agent.callsOf('createPeer').filter((call) => (call.request as { publicKey?: string }).publicKey === leaver.peerKey).length;
    const before = restores();
    try {
      expect(await runAdminCli(['create', '--email', leaver.email], { DATABASE_URL: stack.database.url })).toMatchObject({ code: 0 });
      // Each pass of the every-second retry job restores the peer, then fails to record it: the
      // intent must stay for the next pass (three passes seen), and nothing says it was restored.
      await waitFor(async () => restores() >= before + 3, { description: 'three passes of the retry job over the intent', timeoutMs: 20_000 });
      expect(await pendingOf(leaver.id)).toBeDefined();
      expect(await auditOf('user.access.restore', leaver.id)).toEqual([]);
    } finally {
      await knex.raw(`drop trigger ${trigger} on audit_log; drop function ${trigger}();`);
    }
    await waitFor(async () => (await pendingOf(leaver.id)) === undefined && (await auditOf('user.access.restore', leaver.id)).length > 0, {
      description: 'the retry job to finish the intent and record the restore once the log takes it',
      timeoutMs: 20_000,
    });
  });

  it('gives a restored peer a free address when its own is taken on the dev server anyway, and records that', async () => {
    const leaver = await developer({ vpn: true });
    expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=disable`)).status).toBe(200);
    // A peer the control plane does not know took the address (set up by hand on the server).
    const stranger = { publicKey: Buffer.alloc(32, 7).toString('base64'), address: leaver.address!, identifier: 'handmatig', userId: 1, latestHandshake: undefined, receivedBytes: 0, sentBytes: 0 };
    stack.agent.peers.set(stranger.publicKey, stranger);
    try {
      expect((await (await admin()).json('PUT', `/api/admin/users/${leaver.id}?action=verify`)).status).toBe(200);
      const address = stack.agent.peers.get(leaver.peerKey!)?.address;
      expect(address).toMatch(/^10\.8\.0\.\d+\/32$/);
      expect(address).not.toBe(leaver.address);
      expect((await stack.database.knex('vpn_configs').where({ user_id: leaver.id }).first('address')).address).toBe(address);
      const [restore] = (await auditOf('user.access.restore', leaver.id)).slice(-1);
      expect(restore?.after).toMatchObject({ hosts: { dev1: { vpn_address_changed: { from: leaver.address, to: address } } } });
    } finally {
      stack.agent.peers.delete(stranger.publicKey);
    }
  });
});

describe('the developer flag', () => {
  it('is set and cleared by an admin (audited); clearing revokes like disable and ends their sessions, setting restores', async () => {
    const student = await developer({ database: true, vpn: true });
    const partner = await developer();
    const shared = await projectWithContainer([partner, student]);
    const own = await projectWithContainer([student]);
    stack.agent.sshSessions.set(shared.id, [student.id]);

    const cleared = await (await stack.as(DOCENT)).json<AdminUserJson>('PUT', `/api/admin/users/${student.id}/developer`, { developer: false });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ developer: false, disabled_at: null, access_not_done: null });
    expect((await student.session.json('GET', '/api/user')).status).toBe(401);
    expect(stack.agent.lockedAccounts.has(student.dbUser!)).toBe(true);
    expect(stack.agent.peers.has(student.peerKey!)).toBe(false);
    expect(keysIn(shared.id)).toEqual([partner.key]);
    expect(stack.agent.sshSessions.get(shared.id)).toEqual([]);
    expect(containerOf(own.id)?.state).toBe('exited');
    const [flag] = await auditOf('user.developer', student.id);
    expect(flag).toMatchObject({ before: { developer: true }, after: { developer: false, ended_sessions: 1 } });
    expect((await auditOf('user.access.revoke', student.id))[0]?.after).toMatchObject({ reason: 'user.developer' });

    // Signed in again as a non-developer: the developer screens are closed, the dockers page is not.
    const again = new HttpSession(stack.app.url);
    await again.signIn(student.email);
    expect((await again.json('GET', '/api/user/databases')).status).toBe(403);
    expect((await again.json('GET', '/api/user/dockers')).status).toBe(200);

    const set = await (await stack.as(DOCENT)).json<AdminUserJson>('PUT', `/api/admin/users/${student.id}/developer`, { developer: true });
    expect(set.body).toMatchObject({ developer: true, access_not_done: null });
    expect(stack.agent.lockedAccounts.has(student.dbUser!)).toBe(false);
    expect(stack.agent.peers.get(student.peerKey!)?.address).toBe(student.address);
    expect(keysIn(shared.id).sort()).toEqual([partner.key, student.key].sort());
    expect(containerOf(own.id)?.state).toBe('exited');
    expect((await auditOf('user.developer', student.id)).at(-1)).toMatchObject({ after: { developer: true, ended_sessions: 0 } });
    // Setting what is already set writes no flag entry.
    await (await stack.as(DOCENT)).json('PUT', `/api/admin/users/${student.id}/developer`, { developer: true });
    expect(await auditOf('user.developer', student.id)).toHaveLength(2);
    expect((await (await admin()).json<AdminUserJson[]>('GET', '/api/admin/users')).body.find((user) => user.id === student.id)).toMatchObject({ developer: true, access_not_done: null });
  });

  it('is for admins only, validates its body, refuses clearing one’s own flag and answers 404 for an unknown user', async () => {
    const target = await developer();
    for (const [email, status] of [
      [STUDENT, 403],
      [DEVELOPER, 403],
      [NOT_ACTIVATED, 403],
    ] as const) {
      expect((await (await stack.as(email)).json('PUT', `/api/admin/users/${target.id}/developer`, { developer: false })).status, email).toBe(status);
    }
    expect((await (await stack.anonymous()).json('PUT', `/api/admin/users/${target.id}/developer`, { developer: false })).status).toBe(401);
    expect((await stack.database.knex('users').where({ id: target.id }).first('developer')).developer).toBe(true);

    for (const body of [{}, { developer: 'false' }, { developer: 0 }, { developer: null }, undefined]) {
      const answer = await (await admin()).json<{ errors: Record<string, string[]> }>('PUT', `/api/admin/users/${target.id}/developer`, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
    }
    const anna = await stack.userId(ADMIN);
    const self = await (await admin()).json<{ message: string }>('PUT', `/api/admin/users/${anna}/developer`, { developer: false });
    expect(self).toEqual({ status: 403, body: expect.objectContaining({ message: 'Je kunt je eigen ontwikkelaarsrechten niet intrekken.' }) });
    expect((await (await admin()).json('PUT', '/api/admin/users/987654/developer', { developer: true })).status).toBe(404);
  });
});

describe('a dev server that does not answer, or an agent too old for a step', () => {
  it('keeps the disable, tells the admin in Dutch what is not done, and finishes it once the agent answers again', async () => {
    const leaver = await developer({ database: true, vpn: true });
    const partner = await developer();
    const shared = await projectWithContainer([partner, leaver]);
    stack.agent.mode = 'unavailable';
    let answer;
    try {
      answer = await (await admin()).json<AdminUserJson>('PUT', `/api/admin/users/${leaver.id}?action=disable`);
      expect(answer.status).toBe(200);
      expect(answer.body.disabled_at).not.toBeNull();
      expect(answer.body.access_not_done).toMatch(/^Nog niet gedaan: .*databases vergrendelen.*VPN-verbinding verwijderen.*\(ontwikkelserver dev1 is niet bereikbaar\)\. Dit wordt vanzelf opnieuw geprobeerd\.$/);
      expect((await leaver.session.json('GET', '/api/user')).status).toBe(401);
      // The retry job has tried again meanwhile (still down): the intent keeps what asked for it.
      await waitFor(async () => Number((await pendingOf(leaver.id))?.attempts) >= 2, { description: 'a retry while the agent is still down', timeoutMs: 20_000 });
      expect(await pendingOf(leaver.id)).toMatchObject({ reason: 'user.disable', not_done: answer.body.access_not_done });
      const listed = (await (await admin()).json<AdminUserJson[]>('GET', '/api/admin/users')).body.find((user) => user.id === leaver.id);
      expect(listed?.access_not_done).toBe(answer.body.access_not_done);
      expect(stack.agent.peers.has(leaver.peerKey!)).toBe(true);
    } finally {
      stack.agent.mode = 'ok';
    }
    await waitFor(async () => (await pendingOf(leaver.id)) === undefined, { description: 'the retry job to finish the revocation', timeoutMs: 20_000 });
    expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(true);
    expect(stack.agent.peers.has(leaver.peerKey!)).toBe(false);
    expect(keysIn(shared.id)).toEqual([partner.key]);
    const revokes = await auditOf('user.access.revoke', leaver.id);
    expect(revokes.at(-1)).toMatchObject({ actor_id: null, after: { reason: 'retry: user.disable', not_done: [] } });
    expect((await (await admin()).json<AdminUserJson[]>('GET', '/api/admin/users')).body.find((user) => user.id === leaver.id)?.access_not_done).toBeNull();
  });

  it('retries a member removal the agent missed', async () => {
    const owner = await developer();
    const leaver = await developer();
    const project = await projectWithContainer([owner, leaver]);
    const current = (await owner.session.json<ProjectJson>('GET', `/api/user/project/${project.id}`)).body;
    stack.agent.mode = 'unavailable';
    try {
      expect((await owner.session.json('PUT', `/api/user/project/${project.id}`, { ...current, users: [owner.id] })).status).toBe(200);
      expect(keysIn(project.id)).toEqual([owner.key, leaver.key]);
      expect(await stack.database.knex('pending_host_access').where({ project_id: project.id }).first('end_sessions_of')).toEqual({ end_sessions_of: [leaver.id] });
    } finally {
      stack.agent.mode = 'ok';
    }
    await waitFor(() => keysIn(project.id).length === 1, { description: 'the retry job to re-sync the keys', timeoutMs: 20_000 });
    expect(keysIn(project.id)).toEqual([owner.key]);
    // The job ends the sessions after it wrote the keys: a step later, not at the same moment.
    await waitFor(() => callsOf('endSshSessions').some((call) => call.projectId === project.id), { description: 'the retry job to end the sessions', timeoutMs: 20_000 });
    expect(callsOf('endSshSessions').filter((call) => call.projectId === project.id).at(-1)).toEqual({ projectId: project.id, userIds: [leaver.id] });
    await waitFor(async () => (await stack.database.knex('pending_host_access').where({ project_id: project.id })).length === 0, { description: 'the intent cleared' });
  });

  it('reports what an older agent cannot do (UNIMPLEMENTED) instead of pretending, and does it once the agent can', async () => {
    const leaver = await developer({ database: true });
    const partner = await developer();
    const shared = await projectWithContainer([partner, leaver]);
    stack.agent.sshSessions.set(shared.id, [leaver.id]);
    stack.agent.unimplementedMethods.add('lockAccounts');
    stack.agent.unimplementedMethods.add('endSshSessions');
    try {
      const { body } = await (await admin()).json<AdminUserJson>('PUT', `/api/admin/users/${leaver.id}?action=disable`);
      expect(body.access_not_done).toBe(
        `Nog niet gedaan: databases vergrendelen, SSH-sessies beëindigen in ${shared.name} (de agent op dev1 kan dit nog niet, hij is van een oudere versie). Dit wordt vanzelf opnieuw geprobeerd.`,
      );
      // What it could do, it did: the keys are out.
      expect(keysIn(shared.id)).toEqual([partner.key]);
      expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(false);
      const [audit] = await auditOf('user.access.revoke', leaver.id);
      expect(audit?.after?.not_done).toEqual([
        { host: 'dev1', what: 'databases vergrendelen', why: 'unimplemented' },
        { host: 'dev1', what: `SSH-sessies beëindigen in ${shared.name}`, why: 'unimplemented' },
      ]);
    } finally {
      stack.agent.unimplementedMethods.delete('lockAccounts');
      stack.agent.unimplementedMethods.delete('endSshSessions');
    }
    await waitFor(async () => (await pendingOf(leaver.id)) === undefined, { description: 'the retry after the agent can', timeoutMs: 20_000 });
    expect(stack.agent.lockedAccounts.has(leaver.dbUser!)).toBe(true);
    expect(stack.agent.sshSessions.get(shared.id)).toEqual([]);
  });
});

describe('deleting a user', () => {
  it('removes their databases, VPN peer and own projects through the agent, takes them out of shared containers, then the row', async () => {
    const leaver = await developer({ database: true, vpn: true });
    const partner = await developer();
    const shared = await projectWithContainer([partner, leaver]);
    const own = await projectWithContainer([leaver]);
    stack.agent.sshSessions.set(shared.id, [leaver.id, partner.id]);

    const answer = await (await admin()).api('DELETE', `/api/admin/users/${leaver.id}`);
    expect(answer.status).toBe(204);
    expect(await stack.database.knex('users').where({ id: leaver.id }).first('id')).toBeUndefined();
    expect(stack.agent.databases.has(leaver.dbUser!)).toBe(false);
    expect(await stack.database.knex('databases').where({ user_id: leaver.id })).toHaveLength(0);
    expect(stack.agent.peers.has(leaver.peerKey!)).toBe(false);
    expect(containerOf(own.id)).toBeUndefined();
    expect(await stack.database.knex('projects').where({ id: own.id }).first('id')).toBeUndefined();
    expect(keysIn(shared.id)).toEqual([partner.key]);
    expect(stack.agent.sshSessions.get(shared.id)).toEqual([partner.id]);
    expect(await stack.database.knex('project_user').where({ project_id: shared.id }).pluck('user_id')).toEqual([partner.id]);

    const [audit] = await auditOf('user.delete', leaver.id);
    expect(audit?.after).toMatchObject({ hosts: { dev1: { databases_dropped: [leaver.dbUser], vpn_peer_removed: leaver.address, containers_removed: [own.name], projects_deleted: [own.name] } }, not_done: [] });
    expect(audit?.before).toMatchObject({ shared_projects: [shared.name] });
    expect(await auditOf('project.delete', own.id)).toHaveLength(1);
  });

  it('answers 503 in Dutch and keeps the user (disabled) when the dev server does not answer; deleting again finishes it', async () => {
    const leaver = await developer({ database: true, vpn: true });
    stack.agent.mode = 'unavailable';
    try {
      const refused = await (await admin()).json<{ message: string }>('DELETE', `/api/admin/users/${leaver.id}`);
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe(
        `${(await stack.database.knex('users').where({ id: leaver.id }).first('name')).name} is uitgeschakeld maar nog niet verwijderd: ontwikkelserver dev1 antwoordde niet of weigerde. ` +
          `Nog te doen: database ${leaver.dbUser} verwijderen, de VPN-configuratie verwijderen. Probeer het zo opnieuw; wat al weg is, blijft weg.`,
      );
      const row = await stack.database.knex('users').where({ id: leaver.id }).first('disabled_at');
      expect(row.disabled_at).not.toBeNull();
      expect((await leaver.session.json('GET', '/api/user')).status).toBe(401);
      expect(await stack.database.knex('databases').where({ user_id: leaver.id })).toHaveLength(1);
    } finally {
      stack.agent.mode = 'ok';
    }
    expect((await (await admin()).api('DELETE', `/api/admin/users/${leaver.id}`)).status).toBe(204);
    expect(stack.agent.databases.has(leaver.dbUser!)).toBe(false);
    expect(await stack.database.knex('users').where({ id: leaver.id }).first('id')).toBeUndefined();
  });

  it('deletes a user whose shared container’s agent cannot end sessions yet, says so, and leaves that to the retry job', async () => {
    const leaver = await developer();
    const partner = await developer();
    const shared = await projectWithContainer([partner, leaver]);
    stack.agent.sshSessions.set(shared.id, [leaver.id]);
    stack.agent.unimplementedMethods.add('endSshSessions');
    try {
      const answer = await (await admin()).json<{ message: string }>('DELETE', `/api/admin/users/${leaver.id}`);
      expect(answer.status).toBe(200);
      expect(answer.body.message).toBe(
        `De gebruiker is verwijderd. Nog niet gedaan: SSH-sessies beëindigen in ${shared.name} (de agent op dev1 kan dit nog niet, hij is van een oudere versie). Dit wordt vanzelf opnieuw geprobeerd.`,
      );
      expect(keysIn(shared.id)).toEqual([partner.key]);
      expect(await stack.database.knex('pending_host_access').where({ project_id: shared.id }).first('end_sessions_of')).toEqual({ end_sessions_of: [leaver.id] });
    } finally {
      stack.agent.unimplementedMethods.delete('endSshSessions');
    }
    await waitFor(() => stack.agent.sshSessions.get(shared.id)?.length === 0, { description: 'the retry to end the deleted user’s session', timeoutMs: 20_000 });
  });
});

describe('the key sync itself', () => {
  it('leaves out keys of members who are not developers or are disabled, also when a container is made', async () => {
    const member = await developer();
    const former = await developer();
    // A key of someone who is no developer (any more): it stays in our database, never in a container.
    await stack.database.knex('users').where({ id: former.id }).update({ developer: false });
    const disabled = await developer();
    await stack.database.knex('users').where({ id: disabled.id }).update({ disabled_at: new Date() });
    const project = await projectWithContainer([member, former, disabled]);
    expect(keysIn(project.id)).toEqual([member.key]);
  });
});
