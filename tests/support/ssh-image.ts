/**
 * The SSH test image: the busybox web image of tests/support/docker.ts plus Debian's dropbear
 * server with its libraries, so a test can log in as `student` with a key the agent placed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureBusyboxImage } from './docker.ts';

const execFileAsync = promisify(execFile);

/** busybox httpd on :80 plus Debian's dropbear SSH server on :22 (keys only, host keys made at start). */
export const SSH_IMAGE = 'devplein-test/ssh:1';

/**
 * What the SSH images need after dropping ALL capabilities (measured, docs/operations.md, "Capabilities"):
 * SETUID and SETGID for dropbear to become the student at login, CHOWN and FOWNER to hand the
 * session's pty to the student (chown, then chmod of /dev/pts/N: a terminal login fails without
 * them), KILL for EndSshSessions (root killing the student's processes). busybox httpd on :80
 * needs nothing: Docker lets any user of the container bind ports below 1024
 * (net.ipv4.ip_unprivileged_port_start=0 in its network namespace).
 */
export const SSH_IMAGE_CAPABILITIES: readonly string[] = ['CHOWN', 'FOWNER', 'KILL', 'SETGID', 'SETUID'];

/** Where Debian's dropbear-bin puts the server; undefined when the package is not installed. */
export function dropbearPath(): string | undefined {
  return existsSync('/usr/sbin/dropbear') ? '/usr/sbin/dropbear' : undefined;
}

/**
 * Builds SSH_IMAGE from the host's dropbear (apt-get install dropbear-bin) and the shared
 * libraries ldd names for it, copied to the same paths.
 */
export function ensureSshImage(): Promise<string> {
  return sshImage(SSH_IMAGE, true);
}

/**
 * SSH_IMAGE, but its dropbear logs nowhere (no -E: to syslog, which the image has not): the agent
 * cannot tell whose SSH session is whose there.
 */
export const QUIET_SSH_IMAGE = 'devplein-test/ssh-quiet:1';

export function ensureQuietSshImage(): Promise<string> {
  return sshImage(QUIET_SSH_IMAGE, false);
}

function sshImage(image: string, logToStderr: boolean): Promise<string> {
  // dropbear: -R host keys on first use, -s no passwords, -E log to stderr; it forks to the background.
  const dropbear = dropbearPath();
  if (!dropbear) return Promise.reject(new Error('the SSH test image needs Debian\'s dropbear server: apt-get install dropbear-bin'));
  const flags = logToStderr ? '-R -s -E' : '-R -s';
  return ensureBusyboxImage(image, ['/bin/sh', '-c', `${dropbear} ${flags} -p 22 && exec /bin/httpd -f -p 80 -h /www`], async (rootfs) => {
    const { stdout } = await execFileAsync('ldd', [dropbear]);
    const libraries = [...stdout.matchAll(/(\/\S+\.so[.\d]*)/g)].map((match) => match[1] ?? '');
    for (const file of [dropbear, ...libraries]) {
      await mkdir(path.join(rootfs, path.dirname(file)), { recursive: true });
      await copyFile(await realpath(file), path.join(rootfs, file));
      await chmod(path.join(rootfs, file), 0o755);
    }
    await mkdir(path.join(rootfs, 'etc/dropbear'), { recursive: true });
  });
}

/** The web image without a `student` user: SSH keys have nobody to belong to there. */
export const NO_STUDENT_IMAGE = 'devplein-test/no-student:1';

export function ensureNoStudentImage(): Promise<string> {
  return ensureBusyboxImage(NO_STUDENT_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www'], async (rootfs) => {
    await writeFile(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    await writeFile(path.join(rootfs, 'etc/group'), 'root:x:0:\n');
  });
}
