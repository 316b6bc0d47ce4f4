/**
 * Log levels the journal sees. journald files every line a service writes to stdout as
 * priority info, unless the line starts with a syslog priority `<N>` (sd-daemon(3); journald
 * strips it, SyslogLevelPrefix=yes being the default). So under systemd each pino JSON line gets
 * the prefix of its level and `journalctl -p err` finds the errors; the JSON stays as it was.
 */
import { fstatSync } from 'node:fs';

/** pino's levels by number and by name. */
const pinoLevels: Record<string, number> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 };

/** The syslog priority of a pino level: fatal 2 (crit), error 3, warn 4, info 6, debug and trace 7. */
export function syslogPriority(level: number): number {
  if (level >= 60) return 2;
  if (level >= 50) return 3;
  if (level >= 40) return 4;
  if (level >= 30) return 6;
  return 7;
}

/** The line with the `<N>` of its pino level in front (`{"level":50,...` or `{"level":"error",...`); other lines as they are. */
export function withSyslogPrefix(line: string): string {
  const match = /^\{"level":(?:(\d+)|"([a-z]+)")/.exec(line);
  if (!match) return line;
  const level = match[1] !== undefined ? Number(match[1]) : pinoLevels[match[2] ?? ''];
  return level === undefined ? line : `<${syslogPriority(level)}>${line}`;
}

/**
 * True when file descriptor `fd` is the journal's stream: systemd sets JOURNAL_STREAM to its
 * `device:inode` (sd-daemon(3) says to compare, so output redirected elsewhere, a pipe to
 * pino-pretty for one, gets no prefix).
 */
export function writesToJournal(fd: number, env: Record<string, string | undefined> = process.env): boolean {
  const stream = env.JOURNAL_STREAM;
  if (!stream) return false;
  try {
    const { dev, ino } = fstatSync(fd);
    return stream === `${dev}:${ino}`;
  } catch {
    return false;
  }
}

/** pino's `hooks` option for a logger writing to stdout: the prefix when stdout is the journal. */
export function journaldHooks(env: Record<string, string | undefined> = process.env): { streamWrite?: (line: string) => string } {
  return writesToJournal(1, env) ? { streamWrite: withSyslogPrefix } : {};
}

/**
 * Text for file descriptor `fd` (2: stderr) with `<priority>` in front of every line when that
 * is the journal (journald reads each line on its own), as it is otherwise.
 */
export function forJournal(text: string, priority: number, fd: number, env: Record<string, string | undefined> = process.env): string {
  if (!writesToJournal(fd, env)) return text;
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `<${priority}>${line}`))
    .join('\n');
}
