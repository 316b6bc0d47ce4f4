/**
 * Real SSH logins for tests: key pairs made by ssh-keygen, a one-shot login (`ssh … 'id -un;
 * pwd'`), waiting for a login to work or be refused, and a session that stays open (an
 * interactive loop that answers each line) so a test can see it end. OpenSSH's client, no
 * known_hosts, only the given identity.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { waitFor } from './ports.ts';

const execFileAsync = promisify(execFile);

const clientOptions = (identity: string, port: number): string[] => [
  ...['-i', identity, '-p', String(port), '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'ConnectTimeout=5'],
  ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
];

/** An OpenSSH key pair made by ssh-keygen in `dir`: the private key file and the public key line. */
export async function sshKeyFile(dir: string, name: string): Promise<{ file: string; publicKey: string }> {
  const file = path.join(dir, name);
  await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}

/** `ssh student@127.0.0.1 -p port 'id -un; pwd'` with only this identity. */
export function sshLogin(identity: string, port: number) {
  return execFileAsync('ssh', [...clientOptions(identity, port), 'student@127.0.0.1', 'id -un; pwd']);
}

/** Waits until the SSH server answers (after a start) by logging in with a key that must work. */
export async function expectSshLogin(identity: string, port: number): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      try {
        const { stdout } = await sshLogin(identity, port);
        last = stdout;
        return true;
      } catch (error) {
        // Before dropbear listens the connection closes; a refused key is final.
        last = String((error as { stderr?: string }).stderr ?? error);
        if (/Permission denied/.test(last)) throw new Error(`the key was refused: ${last}`);
        return false;
      }
    },
    { description: `an SSH login on port ${port}`, timeoutMs: 20_000, intervalMs: 200 },
  );
  expect(last).toBe('student\n/home/student\n');
}

export async function expectSshRefused(identity: string, port: number): Promise<void> {
  await expect(sshLogin(identity, port)).rejects.toThrow(/Permission denied/);
}

/** An SSH session that stays open: it answers every line sent with "got <line>". */
export interface OpenSshSession {
  /** Sends a line and waits for its answer; rejects when the session has ended. */
  ping(text: string): Promise<void>;
  /** Resolves with the exit code once the session has ended (the connection closed). */
  readonly ended: Promise<number | null>;
  hasEnded(): boolean;
  /** Ends the client (clean-up). */
  close(): void;
}

/**
 * Logs in and keeps the session open, running `background` first (e.g. a job put in the
 * background that must end with the session). Resolves once the remote shell answered.
 */
export async function openSshSession(identity: string, port: number, background = ':'): Promise<OpenSshSession> {
  const child: ChildProcess = spawn(
    'ssh',
    [...clientOptions(identity, port), 'student@127.0.0.1', `${background}\necho ready; while read -r line; do echo "got $line"; done`],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  let exited = false;
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exited = true), resolve(code))));
  await waitFor(async () => output.includes('ready\n'), {
    description: `an open SSH session on port ${port}`,
    timeoutMs: 20_000,
    intervalMs: 50,
    giveUpIf: () => (exited ? `ssh ended first: ${output}` : undefined),
  });
  return {
    async ping(text) {
      if (exited) throw new Error('the session has ended');
      child.stdin?.write(`${text}\n`);
      await waitFor(async () => output.includes(`got ${text}\n`), {
        description: `an answer to ${text}`,
        timeoutMs: 10_000,
        intervalMs: 50,
        giveUpIf: () => (exited ? 'the session ended' : undefined),
      });
    },
    ended,
    hasEnded: () => exited,
    close: () => {
      if (!exited) child.kill('SIGTERM');
    },
  };
}
