/**
 * The host agent's one door to Docker (drivers/docker/engine.ts) on the real engine: its one
 * exec, capped and timed for one-shot commands (both ways past the cap), and interactive with
 * stdin, a terminal and a resize, as the browser terminal will use it.
 */
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DockerEngine, type EngineContainer } from '../../../host-agent/src/drivers/docker/engine.ts';
import { ensureBusyboxImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';

const IMAGE = 'devplein-test/engine-exec:1';
const suffix = randomSuffix();
let docker: Docker;
let engine: DockerEngine;
let container: EngineContainer;

beforeAll(async () => {
  requireDockerEngine();
  docker = testDocker();
  await ensureBusyboxImage(IMAGE, ['/bin/sleep', '3600']);
  engine = new DockerEngine(docker);
  container = await engine.createContainer({ name: `engine-exec-${suffix}`, Image: IMAGE, HostConfig: { Init: true } });
  await container.start();
});

afterAll(async () => {
  await container?.remove({ force: true }).catch(() => undefined);
});

const oneShot = { timeoutMs: 20_000, maxOutputBytes: 1024, overLimit: 'drain' } as const;

describe('DockerEngine exec, one-shot', () => {
  it('gives stdout and stderr apart, the exit code, and each piece as it arrives', async () => {
    const pieces: string[] = [];
    const outcome = await container.exec(['sh', '-c', 'echo out; echo err >&2; exit 3'], { ...oneShot, onOutput: (chunk, stream) => pieces.push(`${stream}:${chunk.toString()}`) });
    expect(outcome).toMatchObject({ exitCode: 3, timedOut: false, truncated: false });
    expect([outcome.stdout.toString(), outcome.stderr.toString()]).toEqual(['out\n', 'err\n']);
    expect(pieces.sort()).toEqual(['stderr:err\n', 'stdout:out\n']);
  });

  it('runs as the user and in the folder asked for', async () => {
    const outcome = await container.exec(['sh', '-c', 'id -u; pwd'], { ...oneShot, user: '65534', workingDir: '/tmp' });
    expect(outcome.stdout.toString()).toBe('65534\n/tmp\n');
  });

  it("keeps no more than the cap: 'drain' waits for the end and its exit code, 'stop' stops reading at once", async () => {
    const loud = ['sh', '-c', 'head -c 5000 /dev/zero; sleep 1; exit 4'];
    const drained = await container.exec(loud, oneShot);
    expect(drained).toMatchObject({ exitCode: 4, truncated: true, timedOut: false });
    expect(drained.stdout.length).toBe(1024);
    const started = Date.now();
    const stopped = await container.exec(['sh', '-c', 'head -c 5000 /dev/zero; sleep 30'], { ...oneShot, overLimit: 'stop' });
    expect(stopped).toMatchObject({ exitCode: -1, truncated: true, timedOut: false });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('stops waiting at the time limit', async () => {
    const outcome = await container.exec(['sleep', '30'], { ...oneShot, timeoutMs: 500 });
    expect(outcome).toMatchObject({ exitCode: -1, timedOut: true, truncated: false });
  });
});

describe('DockerEngine exec, interactive', () => {
  it('takes stdin through a terminal of the size asked for, resizes it, and reports the exit code', async () => {
    const session = await container.openExec(['sh'], { tty: true, columns: 100, rows: 30, env: ['PS1=$ '] });
    let seen = '';
    session.stream.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const until = (text: string) => vi.waitFor(() => expect(seen).toContain(text), { timeout: 15_000 });
    session.stream.write('stty size; echo "done-$((6*7))"\n');
    await until('done-42');
    expect(seen).toContain('30 100');
    await session.resize(120, 40);
    session.stream.write('stty size; echo "again-$((6*7))"\n');
    await until('again-42');
    expect(seen).toContain('40 120');
    expect(await session.exitCode()).toBeNull();
    const ended = new Promise<void>((resolve) => session.stream.once('end', () => resolve()));
    session.stream.write('exit 5\n');
    await ended;
    await expect.poll(() => session.exitCode(), { timeout: 10_000 }).toBe(5);
  });

  it('without a terminal, splits what the command prints into stdout and stderr', async () => {
    const session = await container.openExec(['sh', '-c', 'read line; echo "got $line"; echo warn >&2'], { tty: false });
    const out: string[] = [];
    const err: string[] = [];
    const into = (list: string[]) => new Writable({ write: (chunk: Buffer, _encoding, done) => (list.push(chunk.toString()), done()) });
    session.demux(into(out), into(err));
    const ended = new Promise<void>((resolve) => session.stream.once('end', () => resolve()));
    session.stream.write('hello\n');
    await ended;
    expect([out.join(''), err.join('')]).toEqual(['got hello\n', 'warn\n']);
  });
});
