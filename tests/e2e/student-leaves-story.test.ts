/**
 * When a student leaves, for real (issue 15): the control plane drives the real agent, which
 * drives real Docker (a project container with Debian's dropbear), a real MariaDB and real
 * WireGuard (tests/support/stacks/dev-host.ts: the agent and MariaDB in a "devhost" namespace, the
 * student's laptop in "home").
 *
 * A developer with a database (a MySQL connection held open from home through the tunnel), a VPN
 * peer passing traffic and an SSH session in a project shared with another developer is
 * disabled by an admin: the connection is killed and new logins are refused, the tunnel stops
 * passing traffic, the SSH session ends and a new SSH login is refused — while the other
 * member's SSH session goes on. Activated again: MySQL logins work (same password, same data),
 * the tunnel passes traffic again, SSH logins work.
 *
 * And the member-removal case: a member edited out of a project loses their open SSH session
 * and their next login at once; the remaining member's session goes on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../support/services/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../support/services/database.ts';
import { type DevHost, inNs, startDevHost } from '../support/stacks/dev-host.ts';
import { randomSuffix, requireDockerEngine, testDocker } from '../support/services/docker.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { openConnectionsOf, type TestMariaDb } from '../support/services/mariadb.ts';
import { waitFor } from '../support/clients/ports.ts';
import { sshAgentEnv } from '../support/services/ssh-agent.ts';
import { ensureSshImage, SSH_IMAGE } from '../support/fixtures/ssh-image.ts';
import { expectSshLogin, expectSshRefused, type OpenSshSession, openSshSession, sshKeyFile } from '../support/clients/ssh-login.ts';
import { tcpConnects } from '../support/services/wireguard.ts';

const suffix = randomSuffix();
const letters = suffix.replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)] ?? 'x');
const docker = testDocker();
const network = `devplein-test-leaves-${suffix}`;

let host: DevHost;
let database: TestDatabase | undefined;
let app: RunningControlPlane | undefined;
let mariadb: TestMariaDb | undefined;
let sshImageId: number;
const sessions: OpenSshSession[] = [];
const processes: ChildProcess[] = [];

beforeAll(async () => {
  requireDockerEngine();
  await ensureSshImage();
  host = await startDevHost({ agentEnv: await sshAgentEnv({ network }) });
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  const [image] = await database.knex('docker_images').insert({ name: 'SSH (test)', image: SSH_IMAGE, ssh: true, wordpress: false }).returning<{ id: number }[]>('id');
  sshImageId = Number(image?.id);
  // Only the requests themselves act: no retry job in between.
  app = await startControlPlane({ databaseUrl: database.url, env: { ...host.controlPlaneEnv, HOST_ACCESS_RETRY_CRON: 'off' } });
}, 180_000);

afterAll(async () => {
  for (const session of sessions) session.close();
  for (const child of processes) child.kill('SIGKILL');
  await app?.stop().catch(() => undefined);
  await database?.destroy().catch(() => undefined);
  const mine = await docker.listContainers({ all: true, filters: { name: [letters] } }).catch(() => []);
  await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
  await docker.getNetwork(network).remove().catch(() => undefined);
  await host?.stop();
}, 90_000);

let made = 0;

/** A fresh activated developer, signed in, with an SSH key made by ssh-keygen added through the API. */
async function developer(name: string): Promise<{ id: number; session: HttpSession; keyFile: string }> {
  made += 1;
  const email = `${name.toLowerCase()}-${suffix}@student.devplein.test`;
  const [row] = await database!
    .knex('users')
    .insert({ name, name_slug: `${name.toLowerCase()}-${suffix}`, email, email_verified_at: new Date(), developer: true })
    .returning<{ id: number }[]>('id');
  const session = new HttpSession(app!.url);
  expect((await session.signIn(email)).status).toBe(200);
  const key = await sshKeyFile(host.workDir, `${name.toLowerCase()}-${made}`);
  expect((await session.json('POST', '/api/user/ssh_keys', { name: 'laptop', sshKey: key.publicKey })).status).toBe(200);
  return { id: Number(row?.id), session, keyFile: key.file };
}

/** An approved project of these members with the SSH image, its container made by the first through the API; its SSH port. */
async function sharedProject(members: Array<{ id: number; session: HttpSession }>): Promise<{ id: number; port: number }> {
  made += 1;
  const name = `weg-${letters}-${'abcdefghij'[made % 10]}`;
  const [row] = await database!
    .knex('projects')
    .insert({ name, domain: `${name}.dev.devplein.test`, description: `Gedeeld project ${name} van het verhaal over vertrekkende studenten.`, visible: false, docker_image_id: sshImageId, validated: true })
    .returning<{ id: number }[]>('id');
  const id = Number(row?.id);
  for (const [position, member] of members.entries()) await database!.knex('project_user').insert({ project_id: id, user_id: member.id, position });
  const created = await members[0]!.session.json('POST', '/api/user/dockers', { id });
  // On a failure, what the control plane and the agent logged says why (a 502 hides the agent's reason).
  expect(created.status, `${JSON.stringify(created.body)}\n${logTail()}`).toBe(200);
  const info = (await docker.listContainers({ all: true, filters: { label: [`devplein.project-id=${id}`], network: [network] } }))[0];
  return { id, port: Number(info?.Labels['devplein.ssh-port']) };
}

/** The last lines the control plane and the agent wrote, for a failure's message. */
function logTail(): string {
  const tail = (text: string) => text.trimEnd().split('\n').slice(-15).join('\n');
  return `control plane:\n${tail(app?.output() ?? '')}\nagent:\n${tail(host.agent.output())}`;
}

async function open(keyFile: string, port: number): Promise<OpenSshSession> {
  const session = await openSshSession(keyFile, port);
  sessions.push(session);
  return session;
}

async function admin(): Promise<HttpSession> {
  const session = new HttpSession(app!.url);
  expect((await session.signIn('admin@devplein.test')).status).toBe(200);
  return session;
}

/** A MySQL login as `user` on devhost itself (loopback): refused or not, whatever the tunnel does. */
async function loginOnDevhost(user: string, password: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await inNs(host.devhost, 'mariadb', ['--no-defaults', '--host=127.0.0.1', `--port=${host.mysqlPort}`, `--user=${user}`, `--password=${password}`, '--batch', '--skip-column-names', '--execute=SELECT 1']);
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

const connectionsOf = (user: string): Promise<number> => openConnectionsOf(mariadb!, user);

describe('a student who leaves, on the real parts', { timeout: 240_000 }, () => {
  it('disabled: MySQL connection killed and logins refused, tunnel closed, SSH session ended and refused; activated again: all of it works again', async () => {
    const student = await developer('Vertrekker');
    const partner = await developer('Blijver');

    // The student's VPN configuration, database and home tunnel, as in the VPN story.
    await waitFor(async () => (await student.session.json('GET', '/api/vpn')).status === 200, { description: 'the control plane reaching the agent', timeoutMs: 30_000, intervalMs: 250 });
    const vpn = await student.session.json<{ identifier: string }>('POST', '/api/vpn');
    expect(vpn.status).toBe(200);
    mariadb = await host.startMariaDb();
    expect((await student.session.json('POST', '/api/user/databases', { db: 'abc' })).status).toBe(200);
    const [abc] = (await student.session.json<Array<{ name: string; user: string; password: string }>>('GET', '/api/user/databases')).body;
    expect(abc).toBeDefined();
    await host.applyConfAtHome(await (await student.session.raw(`/api/vpn/${vpn.body.identifier}`)).text());
    expect(await host.mysqlFromHome(host.tunnelServer, abc!.user, abc!.password, "CREATE TABLE notes (text VARCHAR(40)); INSERT INTO notes VALUES ('van thuis'); SELECT text FROM notes;", abc!.name)).toEqual({
      ok: true,
      output: 'van thuis\n',
    });

    // MySQL connections held open: one from home through the tunnel, one on the dev server itself
    // (as the student's app in a container would hold one).
    const hold = (netns: string, server: string) => {
      const child = spawn(
        'ip',
        ['netns', 'exec', netns, 'mariadb', '--no-defaults', `--host=${server}`, `--port=${host.mysqlPort}`, `--user=${abc!.user}`, `--password=${abc!.password}`, '--execute=SELECT SLEEP(600)'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      processes.push(child);
      let output = '';
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const ended = new Promise<string>((resolve) => child.once('exit', (code) => resolve(`exit ${code}: ${output}`)));
      return { ended };
    };
    hold(host.home, host.tunnelServer);
    const onServer = hold(host.devhost, '127.0.0.1');
    await waitFor(async () => (await connectionsOf(abc!.user)) === 2, { description: 'the two held MySQL connections', timeoutMs: 20_000 });

    // A project shared with another developer; both have an SSH session in its container.
    const project = await sharedProject([partner, student]);
    await expectSshLogin(student.keyFile, project.port);
    const theirs = await open(student.keyFile, project.port);
    const others = await open(partner.keyFile, project.port);
    expect(await tcpConnects(host.home, host.tunnelServer, host.mysqlPort)).toBe(true);

    // The admin disables the student.
    const disabled = await (await admin()).json<{ disabled_at: string | null; access_not_done: string | null }>('PUT', `/api/admin/users/${student.id}?action=disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.access_not_done, JSON.stringify(disabled.body)).toBeNull();
    expect(disabled.body.disabled_at).not.toBeNull();

    // MySQL: both held connections are gone on the server (the client at home may not hear of it:
    // its tunnel closes right after), the one on the server sees it; a new login is refused.
    expect(await connectionsOf(abc!.user)).toBe(0);
    expect(await onServer.ended).toMatch(/^exit [1-9]\d*: .*(Lost connection|server has gone away|Connection was killed)/is);
    const locked = await loginOnDevhost(abc!.user, abc!.password);
    expect(locked.ok).toBe(false);
    expect(locked.output).toMatch(/account is locked/);
    // VPN: the tunnel passes nothing any more.
    expect(await tcpConnects(host.home, host.tunnelServer, host.mysqlPort)).toBe(false);
    // SSH: their session ended, their next login is refused; the other member's session goes on.
    await theirs.ended;
    await expectSshRefused(student.keyFile, project.port);
    await others.ping('nog steeds hier');

    // Activated again.
    const verified = await (await admin()).json<{ access_not_done: string | null }>('PUT', `/api/admin/users/${student.id}?action=verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.access_not_done, JSON.stringify(verified.body)).toBeNull();
    await waitFor(() => tcpConnects(host.home, host.tunnelServer, host.mysqlPort), { description: 'the tunnel passing traffic again', timeoutMs: 30_000, intervalMs: 500 });
    expect(await host.mysqlFromHome(host.tunnelServer, abc!.user, abc!.password, 'SELECT text FROM notes;', abc!.name)).toEqual({ ok: true, output: 'van thuis\n' });
    await expectSshLogin(student.keyFile, project.port);
    await others.ping('en nu samen');
  });

  it('a member edited out of a project loses their SSH session and their next login at once; the other member keeps theirs', async () => {
    const owner = await developer('Eigenaar');
    const member = await developer('Meedoener');
    const project = await sharedProject([owner, member]);
    await expectSshLogin(member.keyFile, project.port);
    const theirs = await open(member.keyFile, project.port);
    const mine = await open(owner.keyFile, project.port);

    const current = (await owner.session.json<Record<string, unknown>>('GET', `/api/user/project/${project.id}`)).body;
    const edited = await owner.session.json('PUT', `/api/user/project/${project.id}`, { ...current, users: [owner.id] });
    expect(edited.status).toBe(200);

    await theirs.ended;
    await expectSshRefused(member.keyFile, project.port);
    await mine.ping('nog hier');
    await expectSshLogin(owner.keyFile, project.port);
  });
});
