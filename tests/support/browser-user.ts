/**
 * The screenshot browser's system user (deploy: devplein-browser), made when missing, so an
 * agent that runs as root in a test runs Chromium as that user with its sandbox on, as it does
 * in production. Made once per machine and kept, like any system user; root only (otherwise the
 * agent falls back to Chromium in its own process and says so in its log).
 */
import { spawnSync } from 'node:child_process';

export const BROWSER_USER = 'devplein-browser';

/** `name` as a system user without home or login shell (idempotent; the installer's useradd). */
export function ensureSystemUser(name: string): void {
  if (process.getuid?.() !== 0) return;
  if (spawnSync('getent', ['passwd', name]).status === 0) return;
  const made = spawnSync('useradd', ['--system', '--user-group', '--home-dir', '/nonexistent', '--no-create-home', '--shell', '/usr/sbin/nologin', name], {
    encoding: 'utf8',
  });
  // 9: another test process made it in between.
  if (made.status !== 0 && made.status !== 9) throw new Error(`useradd ${name} failed: ${made.stderr}`);
}
