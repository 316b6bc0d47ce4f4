import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { authWindows, keyFingerprint, parseProcessTable, sessionKeys, sshSessions } from './ssh-sessions.ts';

/** A /proc/{pid}/stat line with the fields that matter (the rest zero). */
function stat(pid: number, name: string, ppid: number, sid: number, startTicks: number): string {
  const fields = ['S', ppid, sid, sid, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 0, startTicks, 1000, 10];
  return `${pid} (${name}) ${fields.join(' ')}`;
}

const BOOT = 1_800_000_000;

describe('the SSH sessions of a container process table', () => {
  const table = parseProcessTable(
    [
      `btime ${BOOT}`,
      stat(1, 'docker-init', 0, 1, 10),
      stat(7, 'httpd', 1, 1, 12),
      stat(9, 'dropbear', 1, 9, 12),
      stat(54, 'dropbear', 9, 54, 5_000),
      stat(56, 'sh', 54, 56, 5_010),
      stat(57, 'sleep', 56, 56, 5_020),
      // A job of session 54 that outlived its subshell: reparented to init, still in session 56.
      stat(60, 'sleep', 1, 56, 5_030),
      stat(55, 'dropbear', 9, 55, 6_000),
      stat(58, 'sleep', 55, 55, 6_010),
      // A name with spaces and parentheses does not confuse the parser.
      stat(70, 'my (odd) name', 1, 1, 7_000),
      'not a stat line',
    ].join('\n'),
  );

  it('reads the boot time and every stat line', () => {
    expect(table.bootTime).toBe(BOOT);
    expect(table.processes.map((entry) => entry.pid)).toEqual([1, 7, 9, 54, 56, 57, 60, 55, 58, 70]);
    expect(table.processes.at(-1)).toEqual({ pid: 70, name: 'my (odd) name', ppid: 1, sid: 1, startTicks: 7_000 });
  });

  it('finds one session per connection with its processes, background jobs and start time; never init or the listener', () => {
    const sessions = sshSessions(table);
    expect(sessions.map((session) => [session.pid, session.processes.map((entry) => entry.pid).sort((a, b) => a - b)])).toEqual([
      [54, [54, 56, 57, 60]],
      [55, [55, 58]],
    ]);
    expect(sessions[0]?.startedAt.toISOString()).toBe(new Date((BOOT + 50) * 1000).toISOString());
  });

  it('treats OpenSSH’s privilege-separated processes (sshd-session too) as one session each', () => {
    const openssh = parseProcessTable(
      [
        `btime ${BOOT}`,
        stat(1, 'tini', 0, 1, 1),
        stat(5, 'sshd', 1, 5, 2),
        stat(20, 'sshd', 5, 20, 100),
        stat(21, 'sshd', 20, 20, 101),
        stat(22, 'bash', 21, 22, 102),
        stat(30, 'sshd-session', 5, 30, 200),
        stat(31, 'sshd-session', 30, 30, 201),
      ].join('\n'),
    );
    expect(sshSessions(openssh).map((session) => [session.pid, session.processes.map((entry) => entry.pid).sort((a, b) => a - b)])).toEqual([
      [20, [20, 21, 22]],
      [30, [30, 31]],
    ]);
  });

  it('never takes the listener’s POSIX session along (a session process that did not call setsid)', () => {
    const shared = parseProcessTable([`btime ${BOOT}`, stat(1, 'sh', 0, 1, 1), stat(9, 'dropbear', 1, 1, 2), stat(40, 'dropbear', 9, 1, 50), stat(41, 'httpd', 1, 1, 3)].join('\n'));
    expect(sshSessions(shared).map((session) => session.processes.map((entry) => entry.pid))).toEqual([[40]]);
  });
});

describe('whose key a session used, from the SSH server’s log', () => {
  const session = (pid: number, startSeconds: number) => ({ pid, startedAt: new Date(startSeconds * 1000), processes: [] });
  const line = (seconds: number, text: string) => ({ stream: 'stderr' as const, text, time: new Date(seconds * 1000) });
  const auth = (pid: number, fingerprint: string) => `[${pid}] Nov 25 17:51:58 Pubkey auth succeeded for 'student' with ssh-ed25519 key ${fingerprint} from 172.17.0.1:52672`;

  it('takes the first auth line of the pid after the session started; earlier or later lines cannot change it', () => {
    const keys = sessionKeys(
      [session(54, 1000), session(55, 2000)],
      [
        line(990, auth(54, 'SHA256:planted')),
        line(1000.4, `[54] Nov 25 17:51:58 Child connection from 172.17.0.1:52672`),
        line(1000.5, auth(54, 'SHA256:real')),
        line(1001, auth(54, 'SHA256:forged')),
        line(2400, auth(55, 'SHA256:too-late')),
        line(1001, auth(77, 'SHA256:no-such-session')),
      ],
    );
    expect([...keys]).toEqual([[54, 'SHA256:real']]);
  });

  it('reads the windows in which sessions could authenticate, overlapping ones merged', () => {
    const windows = authWindows([session(2000, 2000), session(1000, 1000), session(1100, 1100)], new Date(1_500_000));
    expect(windows.map((window) => [window.since.getTime() / 1000, window.until.getTime() / 1000])).toEqual([
      [998, 1400],
      [1998, 1500],
    ]);
  });

  it('computes the fingerprint ssh-keygen and dropbear print', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-fingerprint-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'x', '-f', path.join(dir, 'key')]);
      const publicKey = readFileSync(path.join(dir, 'key.pub'), 'utf8');
      const printed = execFileSync('ssh-keygen', ['-l', '-f', path.join(dir, 'key.pub')], { encoding: 'utf8' }).split(' ')[1];
      expect(keyFingerprint(publicKey)).toBe(printed);
      expect(keyFingerprint(`${publicKey.trim().split(' ').slice(0, 2).join(' ')} devplein-user-5`)).toBe(printed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
