import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/*
 * Every command line a run starts, as any local user could read it in /proc/*\/cmdline:
 * strace's execve trace of the whole process tree (`-f`), with arguments up to 4096 bytes.
 * The environment is left out of the trace (only its size is printed): it is readable by the
 * process's own user and root only, which is where a secret may go.
 */

/** strace before a command: the trace of every execve of it and its children goes to `traceFile`. */
export function straceArgs(traceFile: string): string[] {
  return ['strace', '-f', '-qq', '-e', 'trace=execve', '-s', '4096', '-o', traceFile];
}

export interface TracedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command args` under strace (straceArgs); resolves whatever its exit code. */
export function runTraced(traceFile: string, command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; timeout?: number }): Promise<TracedRun> {
  const [strace, ...straceRest] = straceArgs(traceFile);
  return new Promise((resolve) => {
    execFile(strace!, [...straceRest, command, ...args], { env: options.env, cwd: options.cwd, timeout: options.timeout ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The execve lines of a trace file: `pid execve("path", ["arg0", …], …) = result`. */
export async function execveLines(traceFile: string): Promise<string[]> {
  return (await readFile(traceFile, 'utf8')).split('\n').filter((line) => line.includes('execve('));
}

/**
 * The command lines that carry one of `secrets` (name → its text, or any distinctive part of it),
 * each with the secret's text replaced by «name», so a failure message names what leaked where
 * without printing it.
 */
export function commandLinesWithSecrets(lines: string[], secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const line of lines) {
    let shown = line;
    for (const [name, text] of Object.entries(secrets)) if (text.length >= 8 && shown.includes(text)) shown = shown.split(text).join(`«${name}»`);
    if (shown !== line) found.push(shown.length > 600 ? `${shown.slice(0, 600)}…` : shown);
  }
  return found;
}
