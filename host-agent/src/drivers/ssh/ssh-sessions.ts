import { createHash } from 'node:crypto';
import type { DockerDriver } from '../docker/docker-driver.ts';
import { DockerError } from '../docker/docker-errors.ts';
import type { DecodedLogLine } from '../docker/log-decoder.ts';

/**
 * The open SSH sessions of a project container, and ending them. Every member logs in as the
 * one `student` user, so the Unix account cannot say whose session is whose. What can: the SSH
 * server's own log, when it writes one to the container's output (dropbear -E; its session
 * process logs "[pid] ... Pubkey auth succeeded for 'student' with <type> key <SHA256
 * fingerprint> from ..."), matched against the fingerprints of the keys the agent wrote. A
 * session the log does not name is ended whatever it is (see EndSshSessions in
 * ssh_access.proto). The environment a login gets (dropbear's SSH_PUBKEYINFO) is not used: the
 * student can change it with one exec.
 *
 * Nothing here needs a program in the image besides `sh` (its `read`, `printf` and `kill`
 * builtins) and /proc: no ps, no cat.
 */

/** One line of /proc/{pid}/stat, as far as it matters here. */
export interface ProcessEntry {
  pid: number;
  /** The process's comm (executable name, at most 15 characters). */
  name: string;
  ppid: number;
  /** POSIX session id. */
  sid: number;
  /** Start time in clock ticks after boot (field 22 of /proc/{pid}/stat). */
  startTicks: number;
}

/** The process table of a container and the host's boot time (/proc/stat btime, seconds). */
export interface ProcessTable {
  bootTime: number;
  processes: ProcessEntry[];
}

/** One SSH connection: the SSH server's process of it and everything to end with it. */
export interface SshSession {
  pid: number;
  startedAt: Date;
  /** The session process, its descendants and the processes of the POSIX sessions among them. */
  processes: ProcessEntry[];
}

/** Linux reports process start times in USER_HZ ticks, 100 per second on every architecture we run on. */
const TICKS_PER_SECOND = 100;
/** Names of SSH servers' processes (OpenSSH ≥ 9.8 runs each connection as sshd-session). */
const SSH_SERVER_NAMES = new Set(['dropbear', 'sshd', 'sshd-session']);
/** How long after its start a session may authenticate: dropbear's and OpenSSH's default login grace. */
const AUTH_GRACE_MS = 300_000;

/**
 * Prints `btime <seconds>` and then every process's stat line. Only sh builtins: `read` takes
 * one line from a file, a process that is gone meanwhile is skipped.
 */
export const PROCESS_TABLE_SCRIPT =
  'while read -r key value rest; do [ "$key" = btime ] && printf "btime %s\\n" "$value"; done < /proc/stat; ' +
  'for dir in /proc/[0-9]*; do { read -r line < "$dir/stat"; } 2>/dev/null && printf "%s\\n" "$line"; done; :';

/**
 * Kills each "pid:startTicks" argument with SIGKILL if that pid still is the process that
 * started then (a pid freed and reused meanwhile is left alone). Field 22 of stat is the 20th
 * after the ") " that ends the name, whatever the name contains.
 */
export const KILL_SCRIPT =
  'for target in "$@"; do pid=${target%%:*}; start=${target#*:}; ' +
  '{ read -r line < "/proc/$pid/stat"; } 2>/dev/null || continue; set -- ${line##*) }; ' +
  '[ "${20}" = "$start" ] && kill -9 "$pid" 2>/dev/null; done; :';

/** Parses PROCESS_TABLE_SCRIPT's output. Lines that are not stat lines are skipped. */
export function parseProcessTable(text: string): ProcessTable {
  let bootTime = 0;
  const processes: ProcessEntry[] = [];
  for (const line of text.split('\n')) {
    const boot = /^btime (\d+)$/.exec(line);
    if (boot) {
      bootTime = Number(boot[1]);
      continue;
    }
    const open = line.indexOf(' (');
    const close = line.lastIndexOf(') ');
    if (open < 1 || close < open) continue;
    const pid = Number(line.slice(0, open));
    const fields = line.slice(close + 2).split(' ');
    // After the name: state, ppid, pgrp, session, ..., starttime is the 20th.
    const [ppid, sid, startTicks] = [fields[1], fields[3], fields[19]].map(Number);
    if (!Number.isSafeInteger(pid) || pid < 1 || [ppid, sid, startTicks].some((value) => !Number.isSafeInteger(value))) continue;
    processes.push({ pid, name: line.slice(open + 2, close), ppid: ppid as number, sid: sid as number, startTicks: startTicks as number });
  }
  return { bootTime, processes };
}

/**
 * The SSH sessions in a process table. A listener is an SSH server process whose parent is not
 * one; each of its SSH server children is one connection. With a connection go its descendants
 * and every process of a POSIX session one of them leads or belongs to (a job put in the
 * background and reparented to init still carries its session id), but never a listener, the
 * container's first process, or the POSIX session of a listener.
 */
export function sshSessions(table: ProcessTable): SshSession[] {
  const byPid = new Map(table.processes.map((entry) => [entry.pid, entry]));
  const isServer = (entry: ProcessEntry | undefined): boolean => entry !== undefined && SSH_SERVER_NAMES.has(entry.name);
  const listeners = table.processes.filter((entry) => isServer(entry) && !isServer(byPid.get(entry.ppid)));
  const protectedPids = new Set([1, ...listeners.map((entry) => entry.pid)]);
  const protectedSids = new Set(listeners.map((entry) => entry.sid));
  const listenerPids = new Set(listeners.map((entry) => entry.pid));
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table.processes) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);

  return table.processes
    .filter((entry) => isServer(entry) && listenerPids.has(entry.ppid))
    .map((session) => {
      const members = new Map<number, ProcessEntry>();
      const sids = new Set<number>();
      const add = (entry: ProcessEntry): void => {
        if (members.has(entry.pid) || protectedPids.has(entry.pid)) return;
        members.set(entry.pid, entry);
        if (!protectedSids.has(entry.sid)) sids.add(entry.sid);
        for (const child of children.get(entry.pid) ?? []) add(child);
      };
      add(session);
      for (let before = -1; before !== members.size; ) {
        before = members.size;
        for (const entry of table.processes) if (sids.has(entry.sid)) add(entry);
      }
      return { pid: session.pid, startedAt: new Date((table.bootTime + session.startTicks / TICKS_PER_SECOND) * 1000), processes: [...members.values()] };
    });
}

/** `SHA256:<base64 without padding>` of an OpenSSH public key line, as ssh-keygen -l and dropbear print it. */
export function keyFingerprint(publicKey: string): string {
  const body = publicKey.trim().split(/\s+/)[1] ?? '';
  return `SHA256:${createHash('sha256').update(Buffer.from(body, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

const AUTH_LINE = /^\[(\d+)\] .*?Pubkey auth succeeded for '[^']*' with \S+ key (SHA256:[A-Za-z0-9+/]+) from /;

/**
 * The key each session authenticated with, from the SSH server's log lines: the first
 * "Pubkey auth succeeded" line of the session's pid that Docker received after the session
 * started (a line a student wrote into the output before that cannot count; the server writes
 * its line before the student has a shell). Sessions without such a line are left out.
 */
export function sessionKeys(sessions: readonly SshSession[], lines: readonly DecodedLogLine[]): Map<number, string> {
  const keys = new Map<number, string>();
  const starts = new Map(sessions.map((session) => [session.pid, session.startedAt.getTime()]));
  for (const line of lines) {
    const match = AUTH_LINE.exec(line.text);
    if (!match) continue;
    const pid = Number(match[1]);
    const start = starts.get(pid);
    // The start is known to the second (boot time has no fraction): allow that much.
    if (start === undefined || keys.has(pid) || !line.time || line.time.getTime() < start - 1_000 || line.time.getTime() > start + AUTH_GRACE_MS) continue;
    keys.set(pid, match[2] as string);
  }
  return keys;
}

/** Log windows in which the sessions authenticated, overlapping ones merged. */
export function authWindows(sessions: readonly SshSession[], now: Date): Array<{ since: Date; until: Date }> {
  const windows = sessions
    .map((session) => ({ since: session.startedAt.getTime() - 2_000, until: Math.min(now.getTime(), session.startedAt.getTime() + AUTH_GRACE_MS) }))
    .sort((a, b) => a.since - b.since);
  const merged: Array<{ since: number; until: number }> = [];
  for (const window of windows) {
    const last = merged.at(-1);
    if (last && window.since <= last.until) last.until = Math.max(last.until, window.until);
    else merged.push({ ...window });
  }
  return merged.map((window) => ({ since: new Date(window.since), until: new Date(window.until) }));
}

/** The container side of EndSshSessions, on the Docker driver (exec as root, logs). */
export class ContainerSshSessions {
  constructor(
    private readonly docker: Pick<DockerDriver, 'exec' | 'logsBetween'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The open sessions of a running container, each with the key fingerprint its log names (if any). */
  async list(containerId: string): Promise<Array<SshSession & { fingerprint: string | undefined }>> {
    const result = await this.docker.exec(containerId, ['/bin/sh', '-c', PROCESS_TABLE_SCRIPT], { user: '0', timeoutMs: 20_000 });
    if (result.exitCode !== 0) throw this.noShell(containerId, result.stderr);
    const sessions = sshSessions(parseProcessTable(result.stdout));
    const lines: DecodedLogLine[] = [];
    for (const window of authWindows(sessions, this.now())) lines.push(...(await this.docker.logsBetween(containerId, window.since, window.until)));
    const keys = sessionKeys(sessions, lines);
    return sessions.map((session) => ({ ...session, fingerprint: keys.get(session.pid) }));
  }

  /** Kills these sessions with everything that belongs to them. */
  async end(containerId: string, sessions: readonly SshSession[]): Promise<void> {
    const targets = sessions.flatMap((session) => session.processes.map((entry) => `${entry.pid}:${entry.startTicks}`));
    if (targets.length === 0) return;
    const result = await this.docker.exec(containerId, ['/bin/sh', '-c', KILL_SCRIPT, 'sh', ...targets], { user: '0', timeoutMs: 20_000 });
    if (result.exitCode !== 0) throw this.noShell(containerId, result.stderr);
  }

  private noShell(containerId: string, stderr: string): DockerError {
    return new DockerError(
      'failed-precondition',
      `cannot look at the SSH sessions in container ${containerId.slice(0, 12)}: /bin/sh there failed (${stderr.trim().slice(0, 200) || 'no message'}); an image with SSH needs /bin/sh`,
    );
  }
}
