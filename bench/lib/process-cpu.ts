import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux everywhere we run). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds a process has used (user + system, with its waited-for children: dockerd's
 * re-executed helpers, the bench's docker CLI processes), from /proc; NaN when it is gone.
 */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17 (1-based), i.e. 11-14 after the command.
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** The CPU seconds named processes use during `work`, as one line ("dockerd 3.2 s, agent 0.4 s"). */
export async function cpuDuring<T>(pids: Record<string, number | undefined>, work: () => Promise<T>): Promise<{ value: T; line: string }> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const value = await work();
  const line = Object.entries(pids)
    .map(([name, pid]) => `${name} ${(cpuSeconds(pid) - (before[name] ?? Number.NaN)).toFixed(1)} s`)
    .join(', ');
  return { value, line };
}
