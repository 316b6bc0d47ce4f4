import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** True while the child has neither exited nor been killed by a signal. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Stops a child politely: SIGTERM, then SIGKILL when it is still there after `graceMs`.
 * Resolves once it is gone, so callers can clean up what it used.
 */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (!isRunning(child)) return;
  const gone = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  }, graceMs);
  try {
    await gone;
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `onLine` for every line of `stream` (without the newline). */
export function forEachLine(stream: Readable, onLine: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/** Copies every line of `stream` to `out` with `prefix` in front, so mixed logs stay readable. */
export function pipeWithPrefix(stream: Readable, prefix: string, out: Writable): void {
  forEachLine(stream, (line) => out.write(`${prefix} ${line}\n`));
}

/** Keeps the last `size` lines seen, to show with an error when a process fails to start. */
export class LineTail {
  private readonly lines: string[] = [];
  constructor(private readonly size = 40) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }

  toString(): string {
    return this.lines.join('\n');
  }
}
