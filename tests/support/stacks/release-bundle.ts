import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { forEachLine, isRunning, LineTail, stopChild } from '../../../scripts/lib/processes.ts';

/** A command of an unpacked release bundle (`bin/devplein <command>`), running. */
export interface BundleProcess {
  child: ChildProcess;
  /** The last lines it printed, for failure messages. */
  output(): string;
  /** Why it is no longer running, or undefined while it runs (a `giveUpIf` for waitFor). */
  exitReason(): string | undefined;
  stop(): Promise<void>;
}

/** A PATH without the repository's node_modules/.bin: the bundle must not lean on anything there. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Starts `bundleDir/bin/devplein ...args` in `cwd` with `env` and a plain system PATH only (none
 * of this process's environment: no NODE_OPTIONS, no tsx loader), as a systemd unit starts it.
 */
export function startBundleCommand(bundleDir: string, args: string[], options: { cwd: string; env: Record<string, string> }): BundleProcess {
  const child = spawn(path.join(bundleDir, 'bin', 'devplein'), args, {
    cwd: options.cwd,
    env: { PATH: SYSTEM_PATH, HOME: options.cwd, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = new LineTail(60);
  forEachLine(child.stdout!, (line) => tail.push(line));
  forEachLine(child.stderr!, (line) => tail.push(line));
  let spawnError: string | undefined;
  child.once('error', (error) => (spawnError = error.message));
  return {
    child,
    output: () => tail.toString(),
    exitReason: () => {
      if (spawnError) return `could not start devplein ${args[0]}: ${spawnError}`;
      if (!isRunning(child)) return `devplein ${args[0]} exited (${child.exitCode ?? child.signalCode})\n${tail.toString()}`;
      return undefined;
    },
    stop: () => stopChild(child, 10_000),
  };
}
