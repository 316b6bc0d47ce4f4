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
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ContainerAction } from '@devplein/proto/container';
import type { AuthorizedKey, EndSshSessionsResponse } from '@devplein/proto/ssh_access';
import { refusal, unaryCall } from '../../support/agent-calls.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/docker.ts';
import { waitFor } from '../../support/ports.ts';
import { findExecutable } from '../../support/system-deps.ts';
import { type SshTestAgent, startSshTestAgent } from '../../support/ssh-agent.ts';
import { dropbearPath, ensureQuietSshImage, ensureSshImage } from '../../support/ssh-image.ts';
import { expectSshLogin, expectSshRefused, type OpenSshSession, openSshSession, sshKeyFile } from '../../support/ssh-login.ts';

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
