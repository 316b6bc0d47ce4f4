/**
 * SSH access end to end: the real host agent (gRPC over mutual TLS) writes a project's
 * authorized_keys into its data folder, and a real container that has that folder mounted
 * read-only at /home/student/.ssh (as the container service mounts it) sees the keys — and a
 * later change — without a restart.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizedKey, type SshAccess, SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { authorizedKeysDir } from '../../host-agent/src/drivers/ssh/authorized-keys.ts';
import { type ClientPems, makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../support/agent.ts';
import { findFreePort } from '../support/ports.ts';
import { findExecutable } from '../support/system-deps.ts';
import { ensureWebImage } from '../support/docker.ts';
import { dropbearPath, ensureSshImage } from '../support/ssh-image.ts';

const execFileAsync = promisify(execFile);
const suffix = randomBytes(4).toString('hex');
/** A real login needs Debian's dropbear (for the image) and the OpenSSH client on the host. */
const canLogIn = dropbearPath() !== undefined && findExecutable('ssh') !== undefined && findExecutable('ssh-keygen') !== undefined;
const docker = new Docker({ socketPath: process.env.DOCKER_SOCKET ?? '/var/run/docker.sock' });
const sshHost = 'dev.school.test';
const base = 800_000 + Math.floor(Math.random() * 99_999);
const sshProject = base;
const plainProject = base + 100_000;
const missingProject = base + 200_000;

let workDir: string;
let dataDir: string;
let pems: ClientPems;
let agent: TestAgent;
let client: SshAccessServiceClient;
let sshPort: number;
let sshContainer: Docker.Container;
const containerNames: string[] = [];

/** A fresh OpenSSH ed25519 public key line: "ssh-ed25519 <base64 blob> comment". */
function ed25519Key(comment = 'someone@laptop'): { line: string; body: string } {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  const body = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64');
  return { line: `ssh-ed25519 ${body} ${comment}`, body };
}

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

const options = () => ({ deadline: new Date(Date.now() + 10_000) });

function setKeys(projectId: number, keys: AuthorizedKey[]): Promise<SshAccess | undefined> {
  return new Promise((resolve, reject) => {
    client.setAuthorizedKeys({ projectId, keys }, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response.access)));
  });
}

function getAccess(projectId: number): Promise<SshAccess | undefined> {
  return new Promise((resolve, reject) => {
    client.getSshAccess({ projectId }, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response.access)));
  });
}

async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to be refused, but it succeeded');
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

/** A container labelled the way the container service labels one, keys folder mounted read-only. */
async function createContainer(image: string, projectId: number, ssh: boolean, port: number): Promise<Docker.Container> {
  const name = `devplein-test-ssh-${projectId}-${suffix}`;
  containerNames.push(name);
  const keysDir = authorizedKeysDir(dataDir, projectId);
  await mkdir(keysDir, { recursive: true });
  const container = await docker.createContainer({
    name,
    Image: image,
    Labels: {
      'devplein.managed': 'true',
      'devplein.project-id': String(projectId),
      'devplein.domain': `${name}.dev.test`,
      'devplein.owner-id': '1',
      'devplein.ssh': String(ssh),
      ...(ssh ? { 'devplein.ssh-port': String(port) } : {}),
      'devplein.wordpress': 'false',
      'devplein.http-port': '80',
    },
    ExposedPorts: ssh ? { '22/tcp': {} } : {},
    HostConfig: {
      Init: true,
      Binds: ssh ? [`${keysDir}:/home/student/.ssh:ro`] : [],
      PortBindings: ssh ? { '22/tcp': [{ HostIp: '127.0.0.1', HostPort: String(port) }] } : {},
    },
  });
  await container.start();
  return container;
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-ssh-'));
  dataDir = path.join(workDir, 'data');
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const image = await ensureWebImage();
  sshPort = await findFreePort();
  sshContainer = await createContainer(canLogIn ? await ensureSshImage() : image, sshProject, true, sshPort);
  await createContainer(image, plainProject, false, 0);
  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_DATA_DIR: dataDir,
      AGENT_SSH_HOST: sshHost,
      // No Caddy in this file: the route keeper finds none and only warns.
      AGENT_CADDY_ADMIN: `http://127.0.0.1:${await findFreePort()}`,
      AGENT_RECONCILE_CRON: '0 0 1 1 *',
    },
  });
  client = new SshAccessServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
});

afterAll(async () => {
  client?.close();
  await agent?.stop();
  for (const name of containerNames) await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('SshAccessService', () => {
  it('puts the members’ keys in the container and a change arrives without a restart', async () => {
    const alice = ed25519Key('alice@laptop');
    const bob = ed25519Key('bob@desktop');
    const startedAt = (await sshContainer.inspect()).State.StartedAt;

    const access = await setKeys(sshProject, [
      { publicKey: alice.line, userId: 11 },
      { publicKey: bob.line, userId: 12 },
    ]);
    expect(access).toEqual({ host: sshHost, port: sshPort, user: 'student', keyCount: 2 });
    expect(await execIn(sshContainer, ['cat', '/home/student/.ssh/authorized_keys'])).toBe(
      `ssh-ed25519 ${alice.body} devplein-user-11\nssh-ed25519 ${bob.body} devplein-user-12\n`,
    );

    const carol = ed25519Key();
    await setKeys(sshProject, [{ publicKey: `  ${carol.line}  `, userId: 13 }]);
    expect(await execIn(sshContainer, ['cat', '/home/student/.ssh/authorized_keys'])).toBe(`ssh-ed25519 ${carol.body} devplein-user-13\n`);
    expect((await sshContainer.inspect()).State.StartedAt).toBe(startedAt);

    // The mount is read-only: the student cannot add a key of their own.
    await expect(execIn(sshContainer, ['sh', '-c', 'echo x >> /home/student/.ssh/authorized_keys'])).rejects.toThrow(/exited with/);

    expect(await getAccess(sshProject)).toEqual({ host: sshHost, port: sshPort, user: 'student', keyCount: 1 });

    // No keys locks SSH: an empty file.
    expect(await setKeys(sshProject, [])).toMatchObject({ keyCount: 0 });
    expect(await execIn(sshContainer, ['cat', '/home/student/.ssh/authorized_keys'])).toBe('');
    expect((await getAccess(sshProject))?.keyCount).toBe(0);
  });

  it('answers NOT_FOUND for a project without a container and FAILED_PRECONDITION without SSH', async () => {
    const key = { publicKey: ed25519Key().line, userId: 1 };
    expect((await refusal(setKeys(missingProject, [key]))).code).toBe(grpc.status.NOT_FOUND);
    expect((await refusal(getAccess(missingProject))).code).toBe(grpc.status.NOT_FOUND);
    const noSsh = await refusal(setKeys(plainProject, [key]));
    expect(noSsh.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect((await refusal(getAccess(plainProject))).code).toBe(grpc.status.FAILED_PRECONDITION);
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
    expect(await execIn(sshContainer, ['cat', '/home/student/.ssh/authorized_keys'])).toBe(`ssh-ed25519 ${good.body} devplein-user-5\n`);
  });

  it.skipIf(!canLogIn)('lets a member log in as student with ssh, and a removed key no longer gets in', async () => {
    const keyFile = async (name: string) => {
      const file = path.join(workDir, name);
      await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
      return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
    };
    const login = (identity: string, port: number) =>
      execFileAsync('ssh', [
        ...['-i', identity, '-p', String(port), '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'ConnectTimeout=5'],
        ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
        'student@127.0.0.1',
        'id -un; pwd',
      ]);
    const first = await keyFile('first-member');
    const second = await keyFile('second-member');

    const access = await setKeys(sshProject, [{ publicKey: first.publicKey, userId: 21 }]);
    expect(access).toMatchObject({ user: 'student', port: sshPort, keyCount: 1 });
    const { stdout } = await login(first.file, access?.port ?? 0);
    expect(stdout).toBe('student\n/home/student\n');
    await expect(login(second.file, sshPort)).rejects.toThrow(/Permission denied/);

    await setKeys(sshProject, [{ publicKey: second.publicKey, userId: 22 }]);
    expect((await login(second.file, sshPort)).stdout).toBe('student\n/home/student\n');
    await expect(login(first.file, sshPort)).rejects.toThrow(/Permission denied/);
  });
});
