/**
 * The git runner (host-agent/src/bin/git-runner.ts) as production runs it: its own process as the git
 * user (`setpriv`, as devplein-git.service's User=), loopback port 0, a fresh secret, its state
 * folder owned by that user. Root only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../clients/ports.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface TestGitRunner {
  url: string;
  secret: string;
  stateDir: string;
  output(): string;
  /** SIGKILL, as a crashed unit. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestGitRunner(options: { user: { name: string; uid: number; gid: number }; stateDir: string }): Promise<TestGitRunner> {
  const secret = randomBytes(24).toString('hex');
  await mkdir(options.stateDir, { recursive: true, mode: 0o750 });
  await chown(options.stateDir, options.user.uid, options.user.gid);
  const child: ChildProcess = spawn(
    'setpriv',
    [
      `--reuid=${options.user.uid}`,
      `--regid=${options.user.gid}`,
      '--clear-groups',
      '--',
      process.execPath,
      '--import',
      'tsx',
      '--conditions=development',
      path.join(root, 'host-agent/src/bin/git-runner.ts'),
    ],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_RUNNER_LISTEN: '127.0.0.1:0',
        GIT_RUNNER_SECRET: secret,
        GIT_RUNNER_STATE_DIR: options.stateDir,
        GIT_RUNNER_EXIT_WITH_STDIN: '1',
        LOG_LEVEL: 'info',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let port: number | undefined;
  let exited: string | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    port ??= Number(/"port":(\d+)[^\n]*"msg":"git runner listening"/.exec(output)?.[1]) || undefined;
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', (code, signal) => (exited = `the git runner exited with ${code ?? signal}`));
  await waitFor(() => port !== undefined, { description: 'the git runner to listen', timeoutMs: 30_000, intervalMs: 50, giveUpIf: () => (exited ? `${exited}\n${output}` : undefined) });
  const ended = new Promise<void>((resolve) => (exited ? resolve() : child.once('exit', () => resolve())));
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    stateDir: options.stateDir,
    output: () => output,
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await ended;
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await ended;
    },
  };
}
