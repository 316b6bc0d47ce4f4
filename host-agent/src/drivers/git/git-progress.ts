/**
 * Progress of `git clone --progress` / `git fetch --progress`, read from git's stderr (LC_ALL=C)
 * into structured events, so a later piece can show them in Dutch like the image pull progress.
 * git rewrites one line with `\r` while a phase runs and ends it with `\n` (", done.").
 */

export type GitProgressPhase = 'enumerating' | 'counting' | 'compressing' | 'receiving' | 'resolving' | 'checking-out';

export interface GitProgressEvent {
  phase: GitProgressPhase;
  /** Whether the remote side reports it (`remote: …`). */
  remote: boolean;
  /** 0–100, when git gives one (enumerating gives only a count). */
  percent?: number;
  current?: number;
  total?: number;
  /** What git says about the bytes so far, e.g. "1.20 MiB | 900.00 KiB/s" (receiving only). */
  transfer?: string;
  /** The phase ended (", done."). */
  done: boolean;
}

const PHASES: Array<[RegExp, GitProgressPhase]> = [
  [/^Enumerating objects/, 'enumerating'],
  [/^Counting objects/, 'counting'],
  [/^Compressing objects/, 'compressing'],
  [/^Receiving objects/, 'receiving'],
  [/^Resolving deltas/, 'resolving'],
  [/^(Updating files|Checking out files)/, 'checking-out'],
];

/** One progress line as an event, or undefined when it is not a progress line. */
export function parseGitProgressLine(rawLine: string): GitProgressEvent | undefined {
  let line = rawLine.trim();
  const remote = line.startsWith('remote: ');
  if (remote) line = line.slice('remote: '.length).trim();
  const phase = PHASES.find(([pattern]) => pattern.test(line))?.[1];
  if (phase === undefined) return undefined;
  const event: GitProgressEvent = { phase, remote, done: /,\s*done\.?$/.test(line) };
  const ratio = /:\s+(\d{1,3})% \((\d+)\/(\d+)\)/.exec(line);
  if (ratio) {
    event.percent = Number(ratio[1]);
    event.current = Number(ratio[2]);
    event.total = Number(ratio[3]);
  } else {
    const count = /:\s+(\d+)/.exec(line);
    if (count) event.current = Number(count[1]);
  }
  const transfer = /\),\s+([^,]*\|[^,]*?)(?:,\s*done\.?)?$/.exec(line);
  if (transfer) event.transfer = transfer[1]!.trim();
  return event;
}

/**
 * Splits git's stderr as it arrives into lines (on `\r` and `\n`) and hands progress events to
 * `onEvent`; other lines are kept (the last ones) for the error message.
 */
export class GitProgressReader {
  private pending = '';
  private readonly otherLines: string[] = [];

  constructor(private readonly onEvent: (event: GitProgressEvent) => void) {}

  push(chunk: string): void {
    this.pending += chunk;
    const parts = this.pending.split(/[\r\n]/);
    this.pending = parts.pop() ?? '';
    for (const part of parts) this.line(part);
  }

  end(): void {
    if (this.pending !== '') this.line(this.pending);
    this.pending = '';
  }

  /** The last lines that were not progress (git's messages), at most 20. */
  messages(): string[] {
    return [...this.otherLines];
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    const event = parseGitProgressLine(line);
    if (event) this.onEvent(event);
    else {
      this.otherLines.push(line.trim());
      if (this.otherLines.length > 20) this.otherLines.shift();
    }
  }
}
