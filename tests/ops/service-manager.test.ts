/**
 * tests/support/stacks/service-manager.sh, the stand-in for systemd in upgrade.test.ts: `stop` signals
 * the unit's own process only. systemd kills a unit's cgroup; the stand-in has a pid file, and a
 * pid alone names whichever process has that number now: a unit whose process ended by itself
 * (a control plane that throws at start, an agent that crashes) leaves its pid behind, and on
 * these machines (pid_max 32768) the kernel hands that number out again within minutes — to a
 * PostgreSQL backend, say. The stand-in keeps the process's start time beside its pid and
 * signals only when both still match.
 *
 * The reuse is made here without waiting for the pids to wrap: the unit's pid file gets the pid
 * of an unrelated process, which is what the stand-in reads after the kernel gave the number away.
 * Runs as root (setpriv), in `npm run test:ops`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const standIn = path.resolve(import.meta.dirname, '../support/stacks/service-manager.sh');

let root: string;
const bystanders: ChildProcess[] = [];

const manager = (action: string, unit: string) =>
  run(standIn, [action, unit], { env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', DEVPLEIN_STANDIN_ROOT: root } });

async function writeUnit(name: string, execStart: string): Promise<void> {
  await writeFile(
    path.join(root, 'etc/systemd/system', name),
    `[Service]\nType=exec\nUser=nobody\nGroup=nogroup\nWorkingDirectory=/\nExecStart=${execStart}\nTimeoutStopSec=5\n`,
  );
}

/** The fields of /proc/<pid>/stat after the name (state first), or none when the process is gone. */
async function statFields(pid: number): Promise<string[]> {
  const line = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return line ? line.slice(line.lastIndexOf(')') + 2).split(' ') : [];
}

/** A process's state letter from /proc (S, R, Z, …), or 'gone'. A zombie has ended: only its parent has not reaped it yet. */
const processState = async (pid: number): Promise<string> => (await statFields(pid))[0] ?? 'gone';
const running = async (pid: number): Promise<boolean> => !['gone', 'Z'].includes(await processState(pid));

/** An unrelated process of this test's own, as a PostgreSQL backend would be. */
function bystander(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  bystanders.push(child);
  return child.pid!;
}

/** A process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot), as the stand-in reads it. */
const startTick = async (pid: number): Promise<string> => (await statFields(pid))[19] ?? '';

/** A bystander whose start time is not `tick`: made again until the clock has moved past the unit's start. */
async function bystanderStartedAfter(tick: string): Promise<number> {
  for (;;) {
    const pid = bystander();
    if ((await startTick(pid)) !== tick) return pid;
    process.kill(pid, 'SIGKILL');
  }
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the stand-in starts units as their user (setpriv): run this test as root');
  root = await mkdtemp(path.join(os.tmpdir(), 'devplein-standin-'));
  await mkdir(path.join(root, 'etc/systemd/system'), { recursive: true });
  for (const file of ['passwd', 'group']) await writeFile(path.join(root, 'etc', file), await readFile(`/etc/${file}`, 'utf8'));
});

afterAll(async () => {
  for (const child of bystanders) child.kill('SIGKILL');
  if (root) await rm(root, { recursive: true, force: true });
});

describe('service-manager.sh stop', () => {
  it('stops a running unit', async () => {
    await writeUnit('runs.service', '/bin/sleep 600');
    await manager('start', 'runs.service');
    const pid = Number((await readFile(path.join(root, 'run/standin/runs.service.pid'), 'utf8')).trim());
    expect(await running(pid)).toBe(true);
    await manager('stop', 'runs.service');
    expect(await running(pid)).toBe(false);
  });

  it('leaves alone the process that got the pid of a unit that ended by itself', async () => {
    await writeUnit('ends.service', '/bin/true');
    await manager('start', 'ends.service');
    const pidFile = path.join(root, 'run/standin/ends.service.pid');
    const unitStart = (await readFile(path.join(root, 'run/standin/ends.service.start'), 'utf8').catch(() => '')).trim();
    // The unit's process has ended; its number now belongs to another process, which the kernel
    // started later. Start times count in clock ticks (10 ms): a process made in the unit's own
    // tick would be, to the stand-in, the unit itself, which no reused pid can be.
    const other = await bystanderStartedAfter(unitStart);
    await writeFile(pidFile, `${other}\n`);
    // stop returns once what it signalled has ended: signalled, `other` would be gone (or a zombie) now.
    await manager('stop', 'ends.service');
    expect(await running(other)).toBe(true);
  });

  it('a unit that ended by itself is started again, not taken for running by its old pid', async () => {
    await writeUnit('again.service', '/bin/sleep 600');
    const other = bystander();
    await mkdir(path.join(root, 'run/standin'), { recursive: true });
    // As left by an earlier run of the unit whose number went to `other`.
    await writeFile(path.join(root, 'run/standin/again.service.pid'), `${other}\n`);
    await manager('start', 'again.service');
    const pid = Number((await readFile(path.join(root, 'run/standin/again.service.pid'), 'utf8')).trim());
    expect(pid).not.toBe(other);
    expect(await running(pid)).toBe(true);
    await manager('stop', 'again.service');
    expect(await running(pid)).toBe(false);
    expect(await running(other)).toBe(true);
  });
});
