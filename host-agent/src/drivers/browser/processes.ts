/**
 * Reading /proc (Linux) for the screenshot browser's processes: find the browser a pool
 * launched (by the marker switch on its command line), its whole process tree, and their
 * resident memory. Used for logs, the benchmark's memory figure and the crash test.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcessEntry {
  pid: number;
  ppid: number;
}

function readProcess(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** The command line of a process as its arguments, or undefined when it is gone. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Pids of processes that have `argument` (exactly) among their arguments. */
export function findProcessesWithArgument(argument: string): number[] {
  return allPids().filter((pid) => commandLine(pid)?.includes(argument) ?? false);
}

/** `root` and all its descendants that are alive now. */
export function processTree(root: number): number[] {
  const entries = allPids().flatMap((pid) => readProcess(pid) ?? []);
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of entries) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const tree: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (!entries.some((entry) => entry.pid === pid)) continue;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** Resident set size in bytes of a process (0 when it is gone). */
export function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Proportional set size in bytes (shared pages divided among the processes sharing them), from
 * /proc/{pid}/smaps_rollup; a fairer sum over Chromium's many processes than RSS. 0 when unreadable.
 */
export function proportionalBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kib = /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}
