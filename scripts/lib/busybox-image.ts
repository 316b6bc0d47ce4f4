/*
 * Docker images made without any registry: a root filesystem of Debian's static busybox (with
 * its applet links, a `student` user and /www) turned into an image by `docker import`. The
 * tests build their images with it, and `npm start` its demo image for the 'Statische site'
 * option, so a fresh install can run a student site without pulling anything.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Static busybox from Debian's busybox-static package. */
export const BUSYBOX_BINARY = '/bin/busybox';

/**
 * Which engine the `docker` CLI talks to: `dockerHost` (e.g. `unix:///tmp/x/docker.sock`, a
 * test's private engine) or, when absent, the CLI's default.
 */
function cliEnv(dockerHost: string | undefined): NodeJS.ProcessEnv {
  return dockerHost === undefined ? process.env : { ...process.env, DOCKER_HOST: dockerHost };
}

/** Whether the local engine (or the one at `dockerHost`) has the image (asks the `docker` CLI). */
export async function hasLocalImage(image: string, dockerHost?: string): Promise<boolean> {
  try {
    await execFileAsync('docker', ['image', 'inspect', image], { env: cliEnv(dockerHost) });
    return true;
  } catch {
    return false;
  }
}

/** A busybox root filesystem in `rootfs`: applet links, a `student` user, /www with index.html. */
export async function busyboxRootfs(rootfs: string): Promise<void> {
  for (const folder of ['bin', 'etc', 'tmp', 'www', 'home/student', 'root', 'proc', 'sys', 'dev', 'usr/local/bin']) {
    await mkdir(path.join(rootfs, folder), { recursive: true });
  }
  await copyFile(BUSYBOX_BINARY, path.join(rootfs, 'bin/busybox'));
  await chmod(path.join(rootfs, 'bin/busybox'), 0o755);
  const { stdout } = await execFileAsync(BUSYBOX_BINARY, ['--list']);
  for (const applet of stdout.split('\n').filter((name) => /^[\w.[-]+$/.test(name) && name !== 'busybox')) {
    await symlink('busybox', path.join(rootfs, 'bin', applet)).catch(() => undefined);
  }
  await writeFile(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nstudent:x:1000:1000:student:/home/student:/bin/sh\n');
  // Locked passwords (SSH logins use keys only) and a valid shell: dropbear checks both.
  await writeFile(path.join(rootfs, 'etc/shadow'), 'root:*:19000:0:99999:7:::\nstudent:*:19000:0:99999:7:::\n', { mode: 0o600 });
  await writeFile(path.join(rootfs, 'etc/group'), 'root:x:0:\nstudent:x:1000:\n');
  await writeFile(path.join(rootfs, 'etc/shells'), '/bin/sh\n');
  await writeFile(path.join(rootfs, 'www/index.html'), 'devplein test page\n');
  await chmod(path.join(rootfs, 'tmp'), 0o1777);
}

/** `docker import`s a root filesystem as `image` with the given CMD (into the engine at `dockerHost` when given). */
export async function importRootfs(rootfs: string, image: string, cmd: string[], dockerHost?: string): Promise<void> {
  await execFileAsync('bash', [
    '-c',
    // Files belong to root, the student's home to the student (uid 1000).
    'set -euo pipefail; tar -C "$1" --owner=0 --group=0 --exclude=./home/student -c . > "$1.tar"; ' +
      'if [ -d "$1/home/student" ]; then tar -C "$1" --owner=1000 --group=1000 -r -f "$1.tar" ./home/student; fi; ' +
      'docker import --change "$3" - "$2" < "$1.tar" >/dev/null; rm -f "$1.tar"',
    'import',
    rootfs,
    image,
    `CMD ${JSON.stringify(cmd)}`,
  ], { env: cliEnv(dockerHost) });
}

/**
 * Builds an image from a busybox root filesystem unless it exists (parallel builders: last tag
 * wins). `extra` adds files to the root filesystem before it is imported; `dockerHost` names
 * another engine than the CLI's default.
 */
export async function ensureBusyboxImage(
  image: string,
  cmd: string[],
  extra: (rootfs: string) => Promise<void> = async () => undefined,
  dockerHost?: string,
): Promise<string> {
  if (await hasLocalImage(image, dockerHost)) return image;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-image-'));
  try {
    const rootfs = path.join(dir, 'rootfs');
    await busyboxRootfs(rootfs);
    await extra(rootfs);
    await importRootfs(rootfs, image, cmd, dockerHost);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return image;
}

