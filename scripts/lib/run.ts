import { spawn, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root (scripts/lib/../..). Scripts run everything from here. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Path of an installed CLI in node_modules/.bin. */
export function bin(name: string): string {
  return join(repoRoot, 'node_modules', '.bin', name);
}

/**
 * Runs a command with the terminal's stdio and resolves with its exit code (128 + signal
 * number style codes are not needed: a signal gives 1). Never rejects on a non-zero exit;
 * a command that cannot be started at all resolves with 127 after printing why.
 */
export function runCommand(command: string, args: string[], options: SpawnOptions = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: 'inherit', ...options });
    child.once('error', (error) => {
      console.error(`could not run ${command}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** "1.2 s" / "2 min 03 s": durations people read at a glance. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}

/** A bold heading when writing to a terminal, plain text otherwise (CI logs). */
export function heading(text: string): string {
  return process.stdout.isTTY ? `\n\x1b[1m== ${text}\x1b[0m` : `\n== ${text}`;
}
