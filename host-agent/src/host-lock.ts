/**
 * A lock that one process of the host holds at a time, for a change made in several steps to
 * state every agent on the host shares (the screenshot browser's firewall chain). Node has no
 * flock(2), so util-linux's flock(1) holds it for us for as long as our pipe to it is open: a
 * crashed agent cannot leave it held, the kernel closes the pipe and the lock goes with it.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where a host lock named `name` lives: /run/lock (a tmpfs on Debian) where this process may
 * write, else the temp folder (under the agent's unit, ProtectSystem=strict makes /run/lock
 * read-only and PrivateTmp gives a /tmp of its own: fine, as production runs one agent a host).
 */
export function hostLockPath(name: string): string {
  return path.join(writable('/run/lock') ? '/run/lock' : tmpdir(), `devplein-${name}.lock`);
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `act` while this process holds the lock file `lockPath`; waits at most `timeoutMs` for it. */
export async function withHostLock<T>(lockPath: string, act: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const holder = spawn('flock', ['--exclusive', '--timeout', String(Math.ceil(timeoutMs / 1000)), lockPath, 'sh', '-c', 'echo held; exec cat > /dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => holder.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    holder.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    holder.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    holder.once('error', (error) => reject(new Error(`the host lock ${lockPath} could not be taken: ${error.message}`)));
    holder.once('exit', (code) => reject(new Error(`the host lock ${lockPath} could not be taken: ${stderr.trim() || `flock exited with ${code}`}`)));
  });
  try {
    return await act();
  } finally {
    holder.stdin.end();
    await exited;
  }
}
