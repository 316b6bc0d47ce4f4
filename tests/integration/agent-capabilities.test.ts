/**
 * Capabilities per image option on the real Docker engine (issue 16): the real agent makes every
 * container with CapDrop ALL and only the capabilities CreateContainer names. A container without
 * CHOWN cannot chown, one with it can; the web image serves on :80 with none at all; the SSH
 * image logs a student in, with a terminal, with SSH_IMAGE_CAPABILITIES only; a name outside the
 * allow-list is INVALID_ARGUMENT and leaves nothing behind; a request without capabilities (an
 * older control plane) gets the set containers had before.
 */
import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusal } from '../support/agent-calls.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../support/docker.ts';
import { type SshTestAgent, startSshTestAgent } from '../support/ssh-agent.ts';
import { dropbearPath, ensureSshImage, SSH_IMAGE_CAPABILITIES } from '../support/ssh-image.ts';
import { expectSshLogin, sshKeyFile } from '../support/ssh-login.ts';
import { findExecutable } from '../support/system-deps.ts';
import { unaryCall } from '../support/agent-calls.ts';

const execFileAsync = promisify(execFile);
const suffix = randomSuffix();
const canLogIn = dropbearPath() !== undefined && findExecutable('ssh') !== undefined && findExecutable('ssh-keygen') !== undefined;
const docker = testDocker();
const base = 700_000 + Math.floor(Math.random() * 99_999);

/** Bit numbers of the capabilities in /proc/<pid>/status (linux/capability.h). */
const CAPABILITY_BITS: Record<string, number> = {
  CHOWN: 0, DAC_OVERRIDE: 1, FOWNER: 3, FSETID: 4, KILL: 5, SETGID: 6, SETUID: 7, SETPCAP: 8, NET_BIND_SERVICE: 10, NET_RAW: 13, SYS_CHROOT: 18, MKNOD: 27, AUDIT_WRITE: 29, SETFCAP: 31,
};
const PREVIOUS_SET = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'AUDIT_WRITE'];

const mask = (names: readonly string[]): bigint => names.reduce((bits, name) => bits | (1n << BigInt(CAPABILITY_BITS[name] ?? -1)), 0n);

let stack: SshTestAgent;
let webImage: string;

/** Runs a command in the container as root; exit code and output. */
async function execAsRoot(container: Docker.Container, cmd: string[]): Promise<{ code: number; output: string }> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: '0' });
  const stream = await exec.start({ hijack: true, stdin: false });
  const sink = new PassThrough();
  let output = '';
  sink.on('data', (chunk: Buffer) => (output += chunk.toString()));
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  return { code: (await exec.inspect()).ExitCode ?? -1, output };
}

/** The bounding set of a process started in the container (what any exec or login can ever have). */
async function boundingSet(container: Docker.Container): Promise<bigint> {
  const { output } = await execAsRoot(container, ['grep', 'CapBnd', '/proc/self/status']);
  return BigInt(`0x${output.trim().split(/\s+/)[1] ?? ''}`);
}

async function make(projectId: number, name: string, add: string[] | undefined, image = webImage, ssh = false) {
  const made = await stack.create({ projectId, name: `${name}-${suffix}`, image, ssh, capabilities: add === undefined ? undefined : { add } });
  return { container: docker.getContainer(made.container?.id ?? ''), labels: made.container?.labels ?? {} };
}

beforeAll(async () => {
  requireDockerEngine();
  webImage = await ensureWebImage();
  stack = await startSshTestAgent({ suffix, prefix: 'devplein-agent-caps-' });
});

afterAll(async () => {
  await stack?.stop();
});

describe('container capabilities on the real engine', () => {
  it('drops ALL: without CHOWN root cannot chown, with it it can; the web server needs none', async () => {
    const [none, chown] = await Promise.all([make(base, 'caps-none', []), make(base + 1, 'caps-chown', ['CHOWN'])]);
    expect((await none.container.inspect()).HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: [], SecurityOpt: ['no-new-privileges'] });
    expect((await chown.container.inspect()).HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: ['CHOWN'] });
    expect(await boundingSet(none.container)).toBe(0n);
    expect(await boundingSet(chown.container)).toBe(mask(['CHOWN']));

    const tryChown = ['sh', '-c', 'touch /tmp/owned && chown 1000:1000 /tmp/owned && stat -c %u /tmp/owned'];
    const refused = await execAsRoot(none.container, tryChown);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/Operation not permitted/);
    expect(await execAsRoot(chown.container, tryChown)).toEqual({ code: 0, output: '1000\n' });

    // busybox httpd as root on :80 without NET_BIND_SERVICE: Docker opens ports below 1024 to
    // every user of the container's network namespace.
    expect((await execAsRoot(none.container, ['cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'])).output.trim()).toBe('0');
    expect(await execAsRoot(none.container, ['wget', '-qO-', 'http://127.0.0.1:80/'])).toEqual({ code: 0, output: 'devplein test page\n' });
  });

  it('refuses a capability outside the allow-list with INVALID_ARGUMENT and makes no container', async () => {
    for (const add of [['SYS_ADMIN'], ['CHOWN', 'NET_RAW'], ['ALL']]) {
      const error = await refusal(make(base + 2, 'caps-evil', add));
      expect(error.code, JSON.stringify(add)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error.details).toMatch(/not allowed/);
    }
    expect(await docker.listContainers({ all: true, filters: { name: [`caps-evil-${suffix}`] } })).toEqual([]);
  });

  it('gives a request without capabilities (a control plane before contract 1.3.0) the set containers always had', async () => {
    const legacy = await make(base + 3, 'caps-legacy', undefined);
    expect((await legacy.container.inspect()).HostConfig?.CapAdd).toEqual(PREVIOUS_SET);
    const bounding = await boundingSet(legacy.container);
    expect(bounding).toBe(mask(PREVIOUS_SET));
    // Never the ones the old CapDrop took away.
    expect(bounding & mask(['NET_RAW', 'MKNOD', 'SETFCAP'])).toBe(0n);
  });

  it.skipIf(!canLogIn)('lets a student log in to the SSH image, also with a terminal, with SSH_IMAGE_CAPABILITIES only', async () => {
    const image = await ensureSshImage();
    const ssh = await make(base + 4, 'caps-ssh', [...SSH_IMAGE_CAPABILITIES], image, true);
    expect(await boundingSet(ssh.container)).toBe(mask(SSH_IMAGE_CAPABILITIES));
    const port = Number(ssh.labels['devplein.ssh-port']);
    const key = await sshKeyFile(stack.workDir, `caps-${suffix}`);
    await unaryCall(stack.ssh, stack.ssh.setAuthorizedKeys, { projectId: base + 4, keys: [{ userId: 1, publicKey: key.publicKey }] });
    await expectSshLogin(key.file, port);
    // A terminal login: dropbear hands /dev/pts/N to the student (chown, then chmod).
    const { stdout } = await execFileAsync(
      'bash',
      ['-c', `printf 'tty; exit\\n' | ssh -tt -i "$1" -p "$2" -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR student@127.0.0.1`, 'ssh', key.file, String(port)],
      { timeout: 20_000 },
    );
    expect(stdout).toMatch(/\/dev\/pts\/\d+/);
  });
});
