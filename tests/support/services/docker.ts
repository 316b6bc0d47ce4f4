/**
 * The Docker engine for tests, and the local test images the container tests run.
 *
 * ensureDockerEngine (called once by the global setup): uses a running engine (the socket
 * answers), else starts `dockerd` as root with its log in a temp file and stops it at teardown,
 * else explains how to get one. Nothing is ever pulled from a public registry: the images are
 * made here from Debian's static busybox with `docker import`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { stopChild } from '../../../scripts/lib/processes.ts';
import { findExecutable } from './system-deps.ts';
import { BUSYBOX_BINARY, ensureBusyboxImage, importRootfs } from '../../../scripts/lib/busybox-image.ts';
import { waitFor } from '../clients/ports.ts';

const execFileAsync = promisify(execFile);

/** The engine's socket (dockerd's default; the only one the tests use). */
export const DOCKER_SOCKET = '/var/run/docker.sock';


/** busybox httpd on :80 serving /www; on start it writes one line to stdout and one to stderr. */
export const WEB_IMAGE = 'devplein-test/web:1';
/** Like WEB_IMAGE plus a stand-in wp-cli at /usr/local/bin/wp (administrator `admin`). */
export const WORDPRESS_IMAGE = 'devplein-test/wordpress:2';

/** The lines WEB_IMAGE writes when it starts. */
export const WEB_STDOUT_LINE = 'devplein-test web: serving /www on port 80';
export const WEB_STDERR_LINE = 'devplein-test web: this line goes to stderr';

/** A dockerode client on the test engine. */
/**
 * A container Docker itself recorded as OOM-killed, for tests that check what the agent reports
 * about one. Docker 20.10 marks OOMKilled only when containerd's OOM event reaches it before the
 * exit event, and keeps one flag for all containers in between (libcontainerd's event loop): with
 * other tests' containers exiting, an OOM-killed container is sometimes recorded without it. So
 * `makeAndSettle` (create the container named `name`, start it, wait until it has been killed and
 * did what it does next) runs again until Docker has recorded OOMKilled, at most five times.
 */
export async function recordedOomKill(docker: Docker, name: string, makeAndSettle: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await makeAndSettle();
    if ((await docker.getContainer(name).inspect()).State.OOMKilled) return;
    if (attempt === 5) throw new Error('Docker did not record OOMKilled for five containers killed at their memory limit');
    await docker.getContainer(name).remove({ force: true });
  }
}

export function testDocker(): Docker {
  return new Docker({ socketPath: DOCKER_SOCKET });
}

async function engineAnswers(): Promise<boolean> {
  if (!existsSync(DOCKER_SOCKET)) return false;
  try {
    await testDocker().ping();
    return true;
  } catch {
    return false;
  }
}

/** A running engine: `stop` is set only when this call started it. */
export interface DockerEngine {
  socket: string;
  stop?: () => Promise<void>;
}

/** Uses the running engine or starts one (as root); throws a message naming the package otherwise. */
export async function ensureDockerEngine(): Promise<DockerEngine> {
  if (await engineAnswers()) return { socket: DOCKER_SOCKET };
  const dockerd = findExecutable('dockerd', ['/usr/sbin', '/usr/bin']);
  if (!dockerd) {
    throw new Error('the Docker engine is not running and dockerd is not installed: apt-get install -y docker.io (as root), or start your Docker engine');
  }
  if (process.getuid?.() !== 0) {
    throw new Error(`the Docker engine is not running (no answer on ${DOCKER_SOCKET}); start it (as root: dockerd &), then run the tests again`);
  }
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-dockerd-'));
  const logPath = path.join(logDir, 'dockerd.log');
  const log = await open(logPath, 'a');
  const child: ChildProcess = spawn(dockerd, ['--host', `unix://${DOCKER_SOCKET}`], { stdio: ['ignore', log.fd, log.fd] });
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `dockerd exited with ${code ?? signal}; see ${logPath}`;
  });
  child.once('error', (error) => {
    exited = `could not start dockerd: ${error.message}`;
  });
  try {
    await waitFor(engineAnswers, { description: `dockerd to answer on ${DOCKER_SOCKET} (log: ${logPath})`, timeoutMs: 60_000, intervalMs: 200, giveUpIf: () => exited });
  } catch (error) {
    await stopChild(child, 10_000);
    await log.close();
    throw error;
  }
  return {
    socket: DOCKER_SOCKET,
    stop: async () => {
      await stopChild(child, 20_000);
      await log.close();
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

/**
 * Fails with the reason the global setup recorded when it could not provide an engine, so a
 * container test says why instead of timing out.
 */
export function requireDockerEngine(): void {
  const problem = process.env.TEST_DOCKER_UNAVAILABLE;
  if (problem) throw new Error(`these tests need the Docker engine: ${problem}`);
}

export async function imageExists(name: string): Promise<boolean> {
  try {
    await testDocker().getImage(name).inspect();
    return true;
  } catch {
    return false;
  }
}

/** Runs `docker` and returns its stdout (its stderr in the error). */
export async function dockerCli(args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync('docker', args, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`docker ${args.join(' ')} failed: ${stderr || String(error)}`, { cause: error });
  }
}

const webStart = `echo '${WEB_STDOUT_LINE}'; echo '${WEB_STDERR_LINE}' >&2; exec httpd -f -p 80 -h /www`;

/** WEB_IMAGE, built when missing (on the shared engine, or the one at `dockerHost`). */
export function ensureWebImage(dockerHost?: string): Promise<string> {
  return ensureBusyboxImage(WEB_IMAGE, ['/bin/sh', '-c', webStart], undefined, dockerHost);
}

/**
 * A stand-in for wp-cli: `wp user list --role=administrator --field=user_login` prints `admin`;
 * `wp user update admin --user_pass=X ...` stores X in /tmp/wp-password-admin and prints
 * Success; an unknown login fails like wp-cli does ("Invalid user ID, email or login").
 */
const fakeWp = `#!/bin/sh
log=/tmp/wp-calls
echo "uid=$(id -u) $*" | sed 's/--user_pass=[^ ]*/--user_pass=***/' >> "$log"
# A hostile site: /tmp/wp-flood makes wp print 1 MiB, /tmp/wp-hang makes it never finish.
if [ -e /tmp/wp-flood ]; then yes 'flood flood flood flood flood flood flood flood' | head -c 1048576; fi
if [ -e /tmp/wp-hang ]; then exec sleep 600; fi
case "$1 $2" in
  "user list")
    echo admin
    exit 0 ;;
  "user update")
    login="$3"
    if [ "$login" != "admin" ]; then
      echo "Error: Invalid user ID, email or login: '$login'" >&2
      exit 1
    fi
    for arg in "$@"; do
      case "$arg" in --user_pass=*) printf '%s' "\${arg#--user_pass=}" > "/tmp/wp-password-$login" ;; esac
    done
    echo "Success: Updated user 1."
    exit 0 ;;
esac
echo "Error: unsupported stand-in command: $*" >&2
exit 1
`;

export { BUSYBOX_BINARY, ensureBusyboxImage };

/** WORDPRESS_IMAGE, built when missing. */
export function ensureWordpressImage(): Promise<string> {
  return ensureBusyboxImage(WORDPRESS_IMAGE, ['/bin/sh', '-c', webStart], async (rootfs) => {
    await writeFile(path.join(rootfs, 'usr/local/bin/wp'), fakeWp, { mode: 0o755 });
    // The web server's user of the official WordPress images (uid 33): wp runs as it, not as root.
    await appendFile(path.join(rootfs, 'etc/passwd'), 'www-data:x:33:33:www-data:/var/www:/bin/sh\n');
    await appendFile(path.join(rootfs, 'etc/group'), 'www-data:x:33:\n');
    // busybox sh has no PATH entry for /usr/local/bin unless told: Docker's default PATH has it.
  });
}

/**
 * A tiny image no other test has (a random file in an otherwise empty layer): pushing it to a
 * registry and removing it locally gives a pull that really downloads a layer.
 */
export async function makeUniqueImage(image: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-unique-'));
  try {
    const rootfs = path.join(dir, 'rootfs');
    await mkdir(rootfs);
    await writeFile(path.join(rootfs, 'unique.txt'), `${image} ${Date.now()} ${Math.random()}\n`);
    await importRootfs(rootfs, image, ['/unique.txt']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return image;
}

/** A random suffix for container and network names, so parallel test files never collide. */
export function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 8).replace(/[^a-z]/g, 'x');
}

// `npx tsx tests/support/services/docker.ts`: check the engine and build the test images by hand.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const engine = await ensureDockerEngine();
  console.log(`engine on ${engine.socket}${engine.stop ? ' (started here)' : ''}`);
  console.log(await ensureWebImage(), await ensureWordpressImage());
  await engine.stop?.();
}
