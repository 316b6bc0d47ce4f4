/**
 * Log lines reach journald with their level (issue 33): under systemd, stdout is a stream to the
 * journal whose `device:inode` is in JOURNAL_STREAM, and journald takes a leading `<N>` as the
 * line's syslog priority (then strips it). Each server runs here as a process (tsx, the real
 * entry points) with stdout and stderr on one file and JOURNAL_STREAM naming that file, as
 * systemd would name its socket; the test reads the first bytes of each line. Without the
 * variable (or with stdout elsewhere, a pipe) the lines stay plain JSON.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, stopChild } from '../../../scripts/lib/processes.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { waitFor } from '../../support/clients/ports.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const workDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-journald-'));
const children: ChildProcess[] = [];
let database: TestDatabase | undefined;

afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)));
  await database?.destroy();
  rmSync(workDir, { recursive: true, force: true });
});

/** Starts `entry` with `env` (plus PATH), stdout and stderr on a new file; `journal`: JOURNAL_STREAM names that file. */
function run(entry: string, env: Record<string, string>, journal = true): { child: ChildProcess; output: () => string } {
  const file = path.join(workDir, `${path.basename(entry, '.ts')}-${children.length}.log`);
  const fd = openSync(file, 'w');
  const { dev, ino } = fstatSync(fd);
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=development', entry], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...(journal ? { JOURNAL_STREAM: `${dev}:${ino}` } : {}), ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  children.push(child);
  return { child, output: () => readFileSync(file, 'utf8') };
}

/** The line whose JSON (after the prefix) has `msg`, with its prefix. */
function lineWith(output: string, msg: string): string | undefined {
  return output.split('\n').find((line) => line.includes(`"msg":${JSON.stringify(msg)}`) || line.includes(`"msg":"${msg}`));
}

describe('log lines under systemd', { timeout: 120_000 }, () => {
  it('the agent: a fatal line starts with <2>, the JSON after it intact', async () => {
    const { child, output } = run('host-agent/src/bin/agent.ts', {});
    await exited(child);
    const line = output().split('\n').find((text) => text.includes('"level":60'));
    expect(line?.slice(0, 14)).toBe('<2>{"level":60');
    expect(JSON.parse(line!.slice(3))).toMatchObject({ level: 60, name: 'host-agent', msg: expect.stringMatching(/AGENT_TLS_CA/) });
  });

  it('the control plane: info lines start with <6>, its warning with <4>, its refused configuration with <3> on every line', async () => {
    // A migrated database of its own: the server starts at once (PGlite's first migrations take a minute on a busy machine).
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, DATA_DIR: path.join(workDir, 'data'), PORT: '0', METRICS_LISTEN: '', LOG_LEVEL: 'info', DEV_LOGIN: '1', AGENT_ADDRESS: 'localhost:1' };
    const server = run('control-plane/src/main.ts', env);
    await waitFor(() => lineWith(server.output(), 'listening') !== undefined, {
      description: 'the control plane listening',
      timeoutMs: 90_000,
      giveUpIf: () => (server.child.exitCode !== null ? `it exited with ${server.child.exitCode}:\n${server.output()}` : undefined),
    });
    expect(lineWith(server.output(), 'listening')?.slice(0, 14)).toBe('<6>{"level":30');
    expect(lineWith(server.output(), 'no agent certificates configured')?.slice(0, 14)).toBe('<4>{"level":40');
    await stopChild(server.child);

    const refused = run('control-plane/src/main.ts', { ...env, DEV_LOGIN: '', PORT: 'abc' });
    await exited(refused.child);
    expect(refused.child.exitCode).toBe(78);
    const lines = refused.output().trimEnd().split('\n');
    expect(lines[0]).toBe('<3>Invalid configuration:');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((line) => line.startsWith('<3>'))).toBe(true);
  });

  it('without JOURNAL_STREAM the lines are JSON as before', async () => {
    const { child, output } = run('host-agent/src/bin/agent.ts', {}, false);
    await exited(child);
    const line = output().split('\n').find((text) => text.includes('"level":60'));
    expect(line?.startsWith('{"level":60')).toBe(true);
  });
});
