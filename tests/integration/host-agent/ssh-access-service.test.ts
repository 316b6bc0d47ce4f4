/**
 * The host agent's SshAccessService (host-agent/src/services/ssh-access-service.ts) on the real
 * Docker engine with real SSH logins. Two parts, each in its own block with its own agent and
 * helpers (their describes stay top-level): ending SSH sessions with the agent as this process's
 * user, and the keys with the agent as an unprivileged system user, as the deploy unit runs it.
 */
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterEach, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerAction, ContainerServiceClient, type CreateContainerRequest } from '@devplein/proto/container';
import { type AuthorizedKey, type EndSshSessionsResponse, type SshAccess, SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { contractMetadata, refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { findExecutable } from '../../support/services/system-deps.ts';
import { type SshTestAgent, startSshTestAgent } from '../../support/services/ssh-agent.ts';
import { ensureQuietSshImage, dropbearPath, ensureNoStudentImage, ensureSshImage } from '../../support/fixtures/ssh-image.ts';
import { type OpenSshSession, openSshSession, expectSshLogin, expectSshRefused, sshKeyFile, sshLogin } from '../../support/clients/ssh-login.ts';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chown, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { type AgentUser, canSwitchUser, processIdentity } from '../../support/fixtures/agent-user.ts';
import { type ClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { STAGED_KEYS_NAME } from '../../../host-agent/src/drivers/ssh/authorized-keys.ts';

/**
 * SshAccessService.EndSshSessions (contract 1.2.0) on real containers with Debian's dropbear,
 * through the real agent running unprivileged as the deploy unit runs it, with real `ssh`
 * sessions held open:
 * - dropbear logging to the container's output (-E): a removed member's session ends, with the
 *   job it put in the background; another member's session stays and still answers;
 * - a session whose key was taken out of authorized_keys ends even when its owner was not named;
 * - dropbear without a log: the agent cannot tell, so every session ends (the documented fallback);
 * - a stopped container has none, a paused one is refused (FAILED_PRECONDITION), bad input too.
 */
{
  const canLogIn = dropbearPath() !== undefined && findExecutable('ssh') !== undefined && findExecutable('ssh-keygen') !== undefined;
  const suffix = randomSuffix();
  const docker = testDocker();
  const base = 700_000 + Math.floor(Math.random() * 99_999);
  const project = { logged: base, quiet: base + 100_000, plain: base + 200_000, missing: base + 300_000 };

  let stack: SshTestAgent;
  const containers: Record<'logged' | 'quiet', { container: Docker.Container; port: number }> = {} as never;
  const sessions: OpenSshSession[] = [];

  const setKeys = (projectId: number, keys: AuthorizedKey[]) => unaryCall(stack.ssh, stack.ssh.setAuthorizedKeys, { projectId, keys });
  const endSessions = (projectId: number, userIds: number[]): Promise<EndSshSessionsResponse> => unaryCall(stack.ssh, stack.ssh.endSshSessions, { projectId, userIds });
  const changeState = (projectId: number, action: ContainerAction) =>
    unaryCall(stack.containers, stack.containers.changeContainerState, { container: { ref: { $case: 'projectId', value: projectId } }, action });

  async function open(identity: string, port: number, background?: string): Promise<OpenSshSession> {
    const session = await openSshSession(identity, port, background);
    sessions.push(session);
    return session;
  }

  /** Whether a process with this exact command line runs in the container (Docker's top). */
  async function runs(container: Docker.Container, commandLine: string): Promise<boolean> {
    const top = await container.top({ ps_args: '-eo pid,args' });
    return (top.Processes ?? []).some((row: string[]) => row.slice(1).join(' ') === commandLine);
  }

  beforeAll(async () => {
    requireDockerEngine();
    const webImage = await ensureWebImage();
    stack = await startSshTestAgent({ suffix, prefix: 'devplein-agent-ssh-sessions-' });
    if (!canLogIn) return;
    for (const [kind, image] of [
      ['logged', await ensureSshImage()],
      ['quiet', await ensureQuietSshImage()],
    ] as const) {
      const made = await stack.create({ projectId: project[kind], name: `${kind}-${suffix}`, image, ssh: true });
      containers[kind] = { container: docker.getContainer(made.container?.id ?? ''), port: Number(made.container?.labels['devplein.ssh-port']) };
    }
    await stack.create({ projectId: project.plain, name: `plain-${suffix}`, image: webImage, ssh: false });
  });

  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe.skipIf(!canLogIn)('ending SSH sessions in a project container', { timeout: 90_000 }, () => {
    it('ends the sessions of a removed member (and their background job), leaves another member’s open', async () => {
      const { container, port } = containers.logged;
      const leaving = await sshKeyFile(stack.workDir, `leaving-${suffix}`);
      const staying = await sshKeyFile(stack.workDir, `staying-${suffix}`);
      await setKeys(project.logged, [
        { publicKey: leaving.publicKey, userId: 51 },
        { publicKey: staying.publicKey, userId: 52 },
      ]);
      await expectSshLogin(leaving.file, port);
      // In a subshell: the job is reparented to the container's init and only its POSIX session ties it to the login.
      const theirs = await open(leaving.file, port, '(sleep 4242 </dev/null >/dev/null 2>&1 &)');
      const theirSecond = await open(leaving.file, port);
      const mine = await open(staying.file, port);
      expect(await runs(container, 'sleep 4242')).toBe(true);

      // The member leaves: their key goes first (as the control plane does), then their sessions.
      await setKeys(project.logged, [{ publicKey: staying.publicKey, userId: 52 }]);
      expect(await endSessions(project.logged, [51])).toEqual({ containerRunning: true, endedSessions: 2, endedUnattributedSessions: 0, keptSessions: 1 });
      expect(await theirs.ended).not.toBe(0);
      await theirSecond.ended;
      expect(await runs(container, 'sleep 4242')).toBe(false);
      await mine.ping('nog hier');
      expect(mine.hasEnded()).toBe(false);
      await expectSshRefused(leaving.file, port);
      await expectSshLogin(staying.file, port);
    });

    it('ends a session whose key is no longer authorized even when its owner was not named; nothing to end is fine', async () => {
      const { port } = containers.logged;
      const dropped = await sshKeyFile(stack.workDir, `dropped-${suffix}`);
      const kept = await sshKeyFile(stack.workDir, `kept-${suffix}`);
      await setKeys(project.logged, [
        { publicKey: dropped.publicKey, userId: 61 },
        { publicKey: kept.publicKey, userId: 62 },
      ]);
      await expectSshLogin(dropped.file, port);
      const stale = await open(dropped.file, port);
      const fine = await open(kept.file, port);
      // User 61 removed one key from their profile; the sync wrote the rest.
      await setKeys(project.logged, [{ publicKey: kept.publicKey, userId: 62 }]);
      expect(await endSessions(project.logged, [])).toEqual({ containerRunning: true, endedSessions: 1, endedUnattributedSessions: 0, keptSessions: 1 });
      await stale.ended;
      await fine.ping('nog hier');
      expect(await endSessions(project.logged, [99])).toEqual({ containerRunning: true, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 1 });
    });

    it('ends every session where the SSH server keeps no log (it cannot tell whose a session is)', async () => {
      const { port } = containers.quiet;
      const leaving = await sshKeyFile(stack.workDir, `quiet-leaving-${suffix}`);
      const staying = await sshKeyFile(stack.workDir, `quiet-staying-${suffix}`);
      await setKeys(project.quiet, [
        { publicKey: leaving.publicKey, userId: 71 },
        { publicKey: staying.publicKey, userId: 72 },
      ]);
      await expectSshLogin(leaving.file, port);
      const theirs = await open(leaving.file, port);
      const mine = await open(staying.file, port);
      await setKeys(project.quiet, [{ publicKey: staying.publicKey, userId: 72 }]);
      expect(await endSessions(project.quiet, [71])).toEqual({ containerRunning: true, endedSessions: 0, endedUnattributedSessions: 2, keptSessions: 0 });
      await theirs.ended;
      await mine.ended;
      // The remaining member simply logs in again; the removed one cannot.
      await expectSshLogin(staying.file, port);
      await expectSshRefused(leaving.file, port);
    });

    it('has nothing to end in a stopped container and refuses a paused one', async () => {
      const { container, port } = containers.quiet;
      const member = await sshKeyFile(stack.workDir, `paused-${suffix}`);
      await setKeys(project.quiet, [{ publicKey: member.publicKey, userId: 81 }]);
      await expectSshLogin(member.file, port);
      const frozen = await open(member.file, port);
      await changeState(project.quiet, ContainerAction.CONTAINER_ACTION_PAUSE);
      const paused = await refusal(endSessions(project.quiet, [81]));
      expect(paused.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(paused.details).toMatch(/paused/);
      await changeState(project.quiet, ContainerAction.CONTAINER_ACTION_UNPAUSE);
      await frozen.ping('weer wakker');

      await changeState(project.quiet, ContainerAction.CONTAINER_ACTION_STOP);
      await frozen.ended;
      expect((await container.inspect()).State.Running).toBe(false);
      expect(await endSessions(project.quiet, [81])).toEqual({ containerRunning: false, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 0 });
      await changeState(project.quiet, ContainerAction.CONTAINER_ACTION_START);
      await waitFor(async () => (await container.inspect()).State.Running, { description: 'the container running again', timeoutMs: 20_000 });
    });
  });

  describe('EndSshSessions refuses what it cannot do', () => {
    it('answers NOT_FOUND without a container, FAILED_PRECONDITION without SSH, INVALID_ARGUMENT for bad ids', async () => {
      expect((await refusal(endSessions(project.missing, [1]))).code).toBe(grpc.status.NOT_FOUND);
      expect((await refusal(endSessions(project.plain, [1]))).code).toBe(grpc.status.FAILED_PRECONDITION);
      expect((await refusal(endSessions(0, [1]))).code).toBe(grpc.status.INVALID_ARGUMENT);
      expect((await refusal(endSessions(project.plain, [0]))).code).toBe(grpc.status.INVALID_ARGUMENT);
      expect((await refusal(endSessions(project.plain, [-5]))).code).toBe(grpc.status.INVALID_ARGUMENT);
    });
  });

  describe.skipIf(!canLogIn)('a second agent on the same Docker engine', { timeout: 90_000 }, () => {
    // Two installations (a staging agent, another test run) number their projects alike: each
    // agent's SSH calls must find its own container, on its own network, never the other's.
    it('addresses only the containers on its own network, even with the same project ids', async () => {
      const other = await startSshTestAgent({ suffix: `${suffix}b`, prefix: 'devplein-agent-ssh-other-' });
      try {
        const mine = containers.logged;
        const theirs = await other.create({ projectId: project.logged, name: `logged-${suffix}b`, image: await ensureQuietSshImage(), ssh: true });
        const theirPort = Number(theirs.container?.labels['devplein.ssh-port']);
        expect(theirPort).not.toBe(mine.port);
        await other.create({ projectId: project.missing, name: `missing-${suffix}b`, image: await ensureQuietSshImage(), ssh: true });

        // Docker lists the newest container first: the other agent's, were the network not checked.
        expect((await unaryCall(stack.ssh, stack.ssh.getSshAccess, { projectId: project.logged })).access?.port).toBe(mine.port);
        expect((await unaryCall(other.ssh, other.ssh.getSshAccess, { projectId: project.logged })).access?.port).toBe(theirPort);
        expect((await refusal(endSessions(project.missing, [1]))).code).toBe(grpc.status.NOT_FOUND);

        // Keys written through one agent reach its own container only.
        const key = await sshKeyFile(stack.workDir, `second-agent-${suffix}`);
        await unaryCall(other.ssh, other.ssh.setAuthorizedKeys, { projectId: project.logged, keys: [{ publicKey: key.publicKey, userId: 91 }] });
        await expectSshLogin(key.file, theirPort);
        await expectSshRefused(key.file, mine.port);
      } finally {
        await other.stop();
      }
    });
  });
}

/**
 * SSH access end to end with the host agent as the deploy unit runs it: its own system user in
 * the Docker socket's group, no capabilities (when the tests run as root; otherwise the agent
 * runs as the tests' own unprivileged user). The real agent (gRPC over mutual TLS) makes a
 * project's container from an image with Debian's dropbear, writes the members' keys into it
 * through the Docker API, and a real `ssh` logs in as student: with the container running,
 * after it was stopped and started, never with a removed key. Containers made by earlier agent
 * versions (a host keys folder bind-mounted read-only) are covered at the end.
 */
{
  const execFileAsync = promisify(execFile);
  const suffix = randomSuffix();
  /** A real login needs Debian's dropbear (for the image) and the OpenSSH client on the host. */
  const canLogIn = dropbearPath() !== undefined && findExecutable('ssh') !== undefined && findExecutable('ssh-keygen') !== undefined;
  const docker = testDocker();
  const base = 800_000 + Math.floor(Math.random() * 99_999);
  const sshProject = base;
  const plainProject = base + 100_000;
  const missingProject = base + 200_000;
  const noStudentProject = base + 300_000;
  const legacyProject = base + 400_000;

  let stack: SshTestAgent;
  let workDir: string;
  let dataDir: string;
  let certDir: string;
  let pems: ClientPems;
  let agentUser: AgentUser | undefined;
  let agent: TestAgent;
  let sshClient: SshAccessServiceClient;
  let containerClient: ContainerServiceClient;
  let network: string;
  let sshHost: string;
  let sshImage: string;
  let webImage: string;
  let sshPort: number;
  let sshContainer: Docker.Container;

  /** A fresh OpenSSH ed25519 public key line: "ssh-ed25519 <base64 blob> comment". */
  function ed25519Key(comment = 'someone@laptop'): { line: string; body: string } {
    const { publicKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
    const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
    const body = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64');
    return { line: `ssh-ed25519 ${body} ${comment}`, body };
  }

  const call = unaryCall;

  async function setKeys(projectId: number, keys: AuthorizedKey[]): Promise<SshAccess | undefined> {
    return (await call(sshClient, sshClient.setAuthorizedKeys, { projectId, keys })).access;
  }

  async function getAccess(projectId: number): Promise<SshAccess | undefined> {
    return (await call(sshClient, sshClient.getSshAccess, { projectId })).access;
  }

  const create = (request: Pick<CreateContainerRequest, 'projectId' | 'name' | 'image' | 'ssh'> & Partial<Pick<CreateContainerRequest, 'authorizedKeys'>>) => stack.create(request);

  async function changeState(projectId: number, action: ContainerAction): Promise<void> {
    await call(containerClient, containerClient.changeContainerState, { container: { ref: { $case: 'projectId', value: projectId } }, action });
  }

  /** Runs a command in the container as `user` and returns its stdout. */
  async function execIn(container: Docker.Container, cmd: string[], user = 'student'): Promise<string> {
    const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: user });
    const stream = await exec.start({ hijack: true, stdin: false });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    docker.modem.demuxStream(stream, stdout, stderr);
    await new Promise<void>((resolve, reject) => {
      stream.on('end', () => resolve());
      stream.on('error', reject);
    });
    const { ExitCode } = await exec.inspect();
    if (ExitCode !== 0) throw new Error(`${cmd.join(' ')} exited with ${ExitCode}: ${err}`);
    return out;
  }

  const readKeys = (container: Docker.Container) => execIn(container, ['cat', '/home/student/.ssh/authorized_keys']);

  /** An OpenSSH key pair made by ssh-keygen for this run. */
  const keyFile = (name: string) => sshKeyFile(workDir, `${name}-${suffix}`);

  beforeAll(async () => {
    requireDockerEngine();
    webImage = await ensureWebImage();
    sshImage = canLogIn ? await ensureSshImage() : webImage;
    await ensureNoStudentImage();
    stack = await startSshTestAgent({ suffix, prefix: 'devplein-agent-ssh-' });
    ({ workDir, dataDir, certDir, pems, agentUser, agent, network, sshHost, ssh: sshClient, containers: containerClient } = stack);
    const made = await create({ projectId: sshProject, name: `ssh-${suffix}`, image: sshImage, ssh: true });
    sshContainer = docker.getContainer(made.container?.id ?? '');
    sshPort = Number(made.container?.labels['devplein.ssh-port']);
    await create({ projectId: plainProject, name: `plain-${suffix}`, image: webImage, ssh: false });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe('SSH access with the agent as an unprivileged user', () => {
    it('runs the agent without root and without capabilities, in the Docker socket’s group', async () => {
      const identity = await processIdentity(agent.pid() ?? 0);
      const expectedUid = agentUser?.uid ?? process.getuid?.();
      expect(identity.uids).toEqual([expectedUid, expectedUid, expectedUid, expectedUid]);
      expect(identity.uids).not.toContain(0);
      expect(identity.effectiveCapabilities).toBe(0n);
      if (agentUser) expect(identity.groups).toContain(agentUser.dockerGid);
    });

    it('writes an empty authorized_keys of the student into a new SSH container before its first start, with no host mount', async () => {
      const info = await sshContainer.inspect();
      expect(info.Mounts).toEqual([]);
      expect(info.HostConfig.Binds ?? []).toEqual([]);
      expect(await readKeys(sshContainer)).toBe('');
      // The engine's own record: the archive went in (extract-to-dir) before the container started.
      const created = Math.floor(new Date(info.Created).getTime() / 1000) - 1;
      const events = await new Promise<string>((resolve, reject) => {
        docker.getEvents({ since: created, until: Math.floor(Date.now() / 1000) + 1, filters: { container: [info.Id] } }, (error, stream) => {
          if (error || !stream) return reject(error ?? new Error('no event stream'));
          let text = '';
          stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
          stream.on('end', () => resolve(text));
          stream.on('error', reject);
        });
      });
      const actions = events.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { Action: string }).Action);
      expect(actions.indexOf('extract-to-dir')).toBeGreaterThan(actions.indexOf('create'));
      expect(actions.indexOf('extract-to-dir')).toBeLessThan(actions.indexOf('start'));
    });

    it.skipIf(!canLogIn)('lets a member log in with their key, refuses a removed key, and takes a new key while the container runs', async () => {
      const first = await keyFile('first-member');
      const second = await keyFile('second-member');
      const startedAt = (await sshContainer.inspect()).State.StartedAt;

      const access = await setKeys(sshProject, [{ publicKey: first.publicKey, userId: 21 }]);
      expect(access).toEqual({ host: sshHost, port: sshPort, user: 'student', keyCount: 1 });
      await expectSshLogin(first.file, sshPort);
      await expectSshRefused(second.file, sshPort);

      // Added while it runs: works at once, no restart.
      await setKeys(sshProject, [
        { publicKey: first.publicKey, userId: 21 },
        { publicKey: second.publicKey, userId: 22 },
      ]);
      await expectSshLogin(second.file, sshPort);
      await expectSshLogin(first.file, sshPort);

      // Removed: refused.
      await setKeys(sshProject, [{ publicKey: second.publicKey, userId: 22 }]);
      await expectSshRefused(first.file, sshPort);
      await expectSshLogin(second.file, sshPort);
      expect((await sshContainer.inspect()).State.StartedAt).toBe(startedAt);
    });

    it.skipIf(!canLogIn)('writes the keys given with the create before the first start: a member logs in at once, no SetAuthorizedKeys needed', async () => {
      const member = await keyFile('with-the-create');
      const other = await keyFile('not-with-the-create');
      const projectId = sshProject + 7;
      const made = await create({ projectId, name: `ssh-keys-${suffix}`, image: sshImage, ssh: true, authorizedKeys: [{ publicKey: member.publicKey, userId: 41 }] });
      expect(made).toMatchObject({ created: true, authorizedKeysWritten: true });
      const container = docker.getContainer(made.container?.id ?? '');
      try {
        const port = Number(made.container?.labels['devplein.ssh-port']);
        expect((await readKeys(container)).split('\n').filter(Boolean)).toEqual([`${member.publicKey.split(' ').slice(0, 2).join(' ')} devplein-user-41`]);
        expect((await getAccess(projectId))?.keyCount).toBe(1);
        await expectSshLogin(member.file, port);
        await expectSshRefused(other.file, port);
        // The same create again finds the container and writes nothing: the caller sets keys itself.
        expect(await create({ projectId, name: `ssh-keys-${suffix}`, image: sshImage, ssh: true, authorizedKeys: [] })).toMatchObject({ created: false, authorizedKeysWritten: false });
        await expectSshLogin(member.file, port);
      } finally {
        await container.remove({ force: true, v: true }).catch(() => undefined);
      }
    });

    it.skipIf(!canLogIn)('takes keys changed while the container is stopped, after it starts', async () => {
      const before = await keyFile('before-stop');
      const during = await keyFile('while-stopped');
      await setKeys(sshProject, [{ publicKey: before.publicKey, userId: 31 }]);
      await expectSshLogin(before.file, sshPort);

      await changeState(sshProject, ContainerAction.CONTAINER_ACTION_STOP);
      expect((await sshContainer.inspect()).State.Running).toBe(false);
      expect(await setKeys(sshProject, [{ publicKey: during.publicKey, userId: 32 }])).toMatchObject({ keyCount: 1 });
      expect((await getAccess(sshProject))?.keyCount).toBe(1);

      await changeState(sshProject, ContainerAction.CONTAINER_ACTION_START);
      await expectSshLogin(during.file, sshPort);
      await expectSshRefused(before.file, sshPort);
    });

    it('gives ~/.ssh and authorized_keys to the student (0700, 0600); the next change replaces what the student wrote there', async () => {
      const alice = ed25519Key('alice@laptop');
      const bob = ed25519Key('bob@desktop');
      const access = await setKeys(sshProject, [
        { publicKey: alice.line, userId: 11 },
        { publicKey: bob.line, userId: 12 },
      ]);
      expect(access).toEqual({ host: sshHost, port: sshPort, user: 'student', keyCount: 2 });
      expect(await readKeys(sshContainer)).toBe(`ssh-ed25519 ${alice.body} devplein-user-11\nssh-ed25519 ${bob.body} devplein-user-12\n`);
      expect(await execIn(sshContainer, ['stat', '-c', '%u:%g %a %n', '/home/student/.ssh', '/home/student/.ssh/authorized_keys'])).toBe(
        '1000:1000 700 /home/student/.ssh\n1000:1000 600 /home/student/.ssh/authorized_keys\n',
      );

      // The student owns the folder (known_hosts, their own git keys), so they can write the file too.
      await execIn(sshContainer, ['sh', '-c', 'echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHN0dWRlbnQ student-added" >> /home/student/.ssh/authorized_keys']);
      await execIn(sshContainer, ['touch', '/home/student/.ssh/known_hosts']);
      expect((await getAccess(sshProject))?.keyCount).toBe(3);
      const carol = ed25519Key();
      await setKeys(sshProject, [{ publicKey: `  ${carol.line}  `, userId: 13 }]);
      expect(await readKeys(sshContainer)).toBe(`ssh-ed25519 ${carol.body} devplein-user-13\n`);
      expect(await execIn(sshContainer, ['ls', '/home/student/.ssh/known_hosts'])).toBe('/home/student/.ssh/known_hosts\n');
      expect(await getAccess(sshProject)).toEqual({ host: sshHost, port: sshPort, user: 'student', keyCount: 1 });

      // The student may even delete ~/.ssh: no keys counted, and the next change makes it again.
      await execIn(sshContainer, ['rm', '-rf', '/home/student/.ssh']);
      expect((await getAccess(sshProject))?.keyCount).toBe(0);
      await setKeys(sshProject, [{ publicKey: carol.line, userId: 13 }]);
      expect(await execIn(sshContainer, ['stat', '-c', '%u:%g %a', '/home/student/.ssh', '/home/student/.ssh/authorized_keys'])).toBe('1000:1000 700\n1000:1000 600\n');

      // No keys locks SSH: an empty file.
      expect(await setKeys(sshProject, [])).toMatchObject({ keyCount: 0 });
      expect(await readKeys(sshContainer)).toBe('');
      expect((await getAccess(sshProject))?.keyCount).toBe(0);
    });

    it('puts authorized_keys in place as a link to a finished file, never writing the file sshd reads in place', async () => {
      const inodes = async () => {
        const out = await execIn(sshContainer, ['stat', '-c', '%i %h', '/home/student/.ssh/authorized_keys', `/home/student/.ssh/${STAGED_KEYS_NAME}`]);
        return out.trim().split('\n');
      };
      await setKeys(sshProject, [{ publicKey: ed25519Key().line, userId: 7 }]);
      const [live, staged] = await inodes();
      // One file under two names: the staged name was written whole, then linked as authorized_keys.
      expect(live).toBe(staged);
      expect(live).toMatch(/ 2$/);
      // A reader that opened the file before a change still reads it whole after it.
      const reader = execIn(sshContainer, ['sh', '-c', 'exec 3< /home/student/.ssh/authorized_keys; touch /tmp/opened; while [ ! -e /tmp/changed ]; do sleep 0.1; done; cat <&3']);
      await waitFor(async () => (await execIn(sshContainer, ['sh', '-c', 'test -e /tmp/opened && echo yes || echo no'])).trim() === 'yes', {
        description: 'the reader to open the file',
        timeoutMs: 10_000,
      });
      const before = await readKeys(sshContainer);
      const next = ed25519Key();
      await setKeys(sshProject, [{ publicKey: next.line, userId: 8 }]);
      await execIn(sshContainer, ['touch', '/tmp/changed']);
      expect(await reader).toBe(before);
      expect(await readKeys(sshContainer)).toBe(`ssh-ed25519 ${next.body} devplein-user-8\n`);
      const [liveAfter] = await inodes();
      expect(liveAfter?.split(' ')[0]).not.toBe(live?.split(' ')[0]);
      await execIn(sshContainer, ['rm', '-f', '/tmp/opened', '/tmp/changed']);
    });

    it('answers NOT_FOUND for a project without a container and FAILED_PRECONDITION without SSH', async () => {
      const key = { publicKey: ed25519Key().line, userId: 1 };
      expect((await refusal(setKeys(missingProject, [key]))).code).toBe(grpc.status.NOT_FOUND);
      expect((await refusal(getAccess(missingProject))).code).toBe(grpc.status.NOT_FOUND);
      const noSsh = await refusal(setKeys(plainProject, [key]));
      expect(noSsh.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect((await refusal(getAccess(plainProject))).code).toBe(grpc.status.FAILED_PRECONDITION);
    });

    it('refuses to make an SSH container of an image without a student user, and leaves nothing behind', async () => {
      const name = `nostudent-${suffix}`;
      const error = await refusal(create({ projectId: noStudentProject, name, image: 'devplein-test/no-student:1', ssh: true }));
      expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(error.details).toMatch(/no usable user student in \/etc\/passwd/);
      expect(await docker.listContainers({ all: true, filters: { name: [name] } })).toEqual([]);
    });

    it('refuses malformed keys with INVALID_ARGUMENT and leaves the file as it was', async () => {
      const good = ed25519Key();
      await setKeys(sshProject, [{ publicKey: good.line, userId: 5 }]);
      const other = ed25519Key();
      const bad: AuthorizedKey[] = [
        { publicKey: '', userId: 5 },
        { publicKey: 'not a key', userId: 5 },
        { publicKey: `${other.line}\nssh-ed25519 ${other.body} injected`, userId: 5 },
        { publicKey: `ssh-rsa ${other.body}`, userId: 5 },
        { publicKey: 'ssh-ed25519 !!!notbase64!!!', userId: 5 },
        { publicKey: `command="sh" ${other.line}`, userId: 5 },
        { publicKey: other.line, userId: 0 },
      ];
      for (const key of bad) {
        const error = await refusal(setKeys(sshProject, [{ publicKey: good.line, userId: 6 }, key]));
        expect(error.code, key.publicKey).toBe(grpc.status.INVALID_ARGUMENT);
      }
      expect((await refusal(getAccess(0))).code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(await readKeys(sshContainer)).toBe(`ssh-ed25519 ${good.body} devplein-user-5\n`);
    });
  });

  describe('containers made by earlier agent versions (keys folder of the host mounted read-only)', () => {
    let legacy: Docker.Container;
    let legacyPort: number;
    let keysDir: string;

    beforeAll(async () => {
      // As the earlier agent made it: the folder on the host (root's, the agent ran as root for
      // SSH), mounted read-only at /home/student/.ssh, labelled like every project container.
      keysDir = path.join(dataDir, 'ssh', String(legacyProject));
      await mkdir(keysDir, { recursive: true });
      if (canSwitchUser()) await chown(keysDir, 0, 0);
      await writeFile(path.join(keysDir, 'authorized_keys'), '');
      legacyPort = await findFreePort();
      const name = `legacy-${suffix}`;
      legacy = await docker.createContainer({
        name,
        Image: sshImage,
        Labels: {
          'devplein.managed': 'true',
          'devplein.project-id': String(legacyProject),
          'devplein.domain': `${name}.dev.test`,
          'devplein.owner-id': '1',
          'devplein.ssh': 'true',
          'devplein.ssh-port': String(legacyPort),
          'devplein.wordpress': 'false',
          'devplein.http-port': '80',
        },
        ExposedPorts: { '22/tcp': {} },
        HostConfig: {
          Init: true,
          NetworkMode: network,
          Binds: [`${keysDir}:/home/student/.ssh:ro`],
          PortBindings: { '22/tcp': [{ HostIp: '127.0.0.1', HostPort: String(legacyPort) }] },
        },
      });
      await legacy.start();
    });

    it.skipIf(!canSwitchUser() || !canLogIn)('keep working as before while the agent runs as root', async () => {
      const rootAgent = await startTestAgent({
        certDir,
        dataDir,
        env: { AGENT_CADDY_ADMIN: `http://127.0.0.1:${await findFreePort()}`, AGENT_RECONCILE_CRON: '0 0 1 1 *', AGENT_DOCKER_NETWORK: network },
      });
      const client = new SshAccessServiceClient(rootAgent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
      try {
        const member = await keyFile('legacy-member');
        await new Promise<void>((resolve, reject) => {
          client.setAuthorizedKeys({ projectId: legacyProject, keys: [{ publicKey: member.publicKey, userId: 41 }] }, contractMetadata(), (error) => (error ? reject(error) : resolve()));
        });
        expect(await readKeys(legacy)).toMatch(/ devplein-user-41\n$/);
        await expectSshLogin(member.file, legacyPort);
      } finally {
        client.close();
        await rootAgent.stop();
      }
    });

    it('get their keys in the host folder from the unprivileged agent, with a warning to re-create them', async () => {
      // What systemd's StateDirectory= does once the unit's User= is the agent's own user again.
      if (agentUser) await execFileAsync('chown', ['-R', `${agentUser.name}:${agentUser.name}`, path.join(dataDir, 'ssh')]);
      const member = ed25519Key();
      expect(await setKeys(legacyProject, [{ publicKey: member.line, userId: 42 }])).toMatchObject({ port: legacyPort, keyCount: 1 });
      expect(await readFile(path.join(keysDir, 'authorized_keys'), 'utf8')).toBe(`ssh-ed25519 ${member.body} devplein-user-42\n`);
      expect(await readKeys(legacy)).toBe(`ssh-ed25519 ${member.body} devplein-user-42\n`);
      expect((await getAccess(legacyProject))?.keyCount).toBe(1);
      expect(agent.output()).toContain('still has the read-only keys folder of an earlier agent mounted');
      if (canLogIn && agentUser && agentUser.uid !== 1000) {
        // The reason for the warning: the SSH server refuses a key file of the agent's user.
        const member2 = await keyFile('legacy-unprivileged');
        await setKeys(legacyProject, [{ publicKey: member2.publicKey, userId: 43 }]);
        await waitFor(async () => (await sshLogin(member2.file, legacyPort).catch((error: unknown) => ({ stdout: String(error) }))).stdout.includes('Permission denied'), {
          description: 'dropbear to answer on the legacy container',
          timeoutMs: 20_000,
        });
      }

      // Re-creating is the way out; removing the container also removes its host folder.
      await call(containerClient, containerClient.removeContainer, { container: { ref: { $case: 'projectId', value: legacyProject } } });
      await expect(stat(keysDir)).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });
}
