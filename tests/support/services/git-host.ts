/**
 * A test git host (issue 23), started by tests on free loopback ports, stopped with nothing left
 * running. Neither Gitea nor Forgejo is in Debian 12, so it is made of git's own servers:
 * - `git daemon` for anonymous clones (`git://`, --export-all, base path in a temp folder);
 * - `git http-backend` (CGI) behind a small Node HTTP server on 127.0.0.1 and 127.0.0.2:
 *   `/git/<repo>` asks Basic auth with the token as password (401 without), `/open/<repo>` is
 *   public, and `/redirect/<repo>` answers 302 to `/open/<repo>` on the other address (another
 *   host, which git must not follow), and `/hang/<repo>` never answers (for the time limit);
 * - `sshd` (Debian's openssh-server) on a loopback port for deploy-key clones: the login is this
 *   process's user, forced into `git-shell`, with keys only from the host's own authorized_keys
 *   (not the user's). Absent when /usr/sbin/sshd is not installed (`sshUrl` is then undefined).
 * Helpers make repositories with files, push commits, force-push a new tree and make big ones.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort, waitFor } from '../clients/ports.ts';

const run = promisify(execFile);

export const SSHD_PATH = '/usr/sbin/sshd';

export type RepositoryFiles = Record<string, string | Buffer>;

/** Submodules to record in a commit: path → the address in .gitmodules and the commit it points at. */
export type Submodules = Record<string, { url: string; commit: string }>;

export interface GitHost {
  /** Folder of the bare repositories (`<name>.git`). */
  reposDir: string;
  /** The token the HTTP server's `/git/` route wants as Basic auth password. */
  token: string;
  /**
   * The allow-list entries of this host's servers (`127.0.0.1:<port>` for git daemon, HTTP and
   * sshd): an entry without a port allows the transport's standard port only (issue 35).
   */
  allowedHosts: string[];
  /** The entry of the redirect's target (`127.0.0.2:<http port>`). */
  redirectTargetHost: string;
  /** `git://127.0.0.1:<port>/<name>.git` (anonymous). */
  daemonUrl(name: string): string;
  /** `http://127.0.0.1:<port>/git/<name>.git` (token required). */
  httpUrl(name: string): string;
  /** `http://127.0.0.1:<port>/open/<name>.git` (public). */
  openHttpUrl(name: string): string;
  /** `http://127.0.0.1:<port>/redirect/<name>.git`: 302 to the public route on 127.0.0.2. */
  redirectUrl(name: string): string;
  /** `http://127.0.0.1:<port>/hang/<name>.git`: accepts the request and never answers. */
  hangingUrl(name: string): string;
  /** `ssh://<user>@127.0.0.1:<port>/<reposDir>/<name>.git`, or undefined without sshd. */
  sshUrl(name: string): string | undefined;
  /** Lets a public key line log in over SSH (as git-shell). */
  authorizeKey(publicKey: string): Promise<void>;
  /** A new repository on branch `branch` (default main) with one commit of `files`; returns its hash. */
  createRepository(name: string, files: RepositoryFiles, options?: { branch?: string; message?: string }): Promise<string>;
  /** A commit on top of the branch with `files` written (and `remove` deleted); returns its hash. */
  pushCommit(name: string, files: RepositoryFiles, options?: { message?: string; remove?: string[]; branch?: string; submodules?: Submodules }): Promise<string>;
  /** Replaces the branch by a new root commit with only `files` (a forced push); returns its hash. */
  forcePushTree(name: string, files: RepositoryFiles, options?: { message?: string; branch?: string }): Promise<string>;
  /** A repository with `megabytes` MB of incompressible files (one per MB) and an index.html. */
  createLargeRepository(name: string, megabytes: number): Promise<string>;
  /** Process ids of the servers (for a test that checks stop()). */
  pids(): number[];
  /** The ports listened on, for a test that checks stop(). */
  ports(): number[];
  /** Stops every server and removes the temp folder. */
  stop(): Promise<void>;
}

const AUTHOR_ENV = {
  GIT_AUTHOR_NAME: 'Student Test',
  GIT_AUTHOR_EMAIL: 'student@school.test',
  GIT_COMMITTER_NAME: 'Student Test',
  GIT_COMMITTER_EMAIL: 'student@school.test',
};

function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether something listens on `host:port`. */
export { portAnswers };

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const exited = exitOf(child);
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  await exited;
  // Per-connection children of git daemon and sshd are in the same group.
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

/** Answers a request through `git http-backend` (CGI). */
function serveGit(request: IncomingMessage, response: ServerResponse, reposDir: string, pathInfo: string, query: string): void {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PROJECT_ROOT: reposDir,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: pathInfo,
    QUERY_STRING: query,
    REQUEST_METHOD: request.method ?? 'GET',
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
    REMOTE_USER: 'student',
    ...(request.headers['content-length'] !== undefined ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
    ...(request.headers['content-encoding'] !== undefined ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
    ...(typeof request.headers['git-protocol'] === 'string' ? { GIT_PROTOCOL: request.headers['git-protocol'] } : {}),
  };
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  request.pipe(cgi.stdin);
  cgi.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersSent = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const crlf = head.indexOf('\r\n\r\n');
    const lf = head.indexOf('\n\n');
    const end = crlf !== -1 && (lf === -1 || crlf < lf) ? crlf + 4 : lf !== -1 ? lf + 2 : -1;
    if (end === -1) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    headersSent = true;
    response.write(head.subarray(end));
  });
  cgi.on('close', () => {
    if (!headersSent) response.writeHead(502);
    response.end();
  });
}

export async function startGitHost(): Promise<GitHost> {
  const root = await mkdtemp(join(tmpdir(), 'devplein-git-host-'));
  const reposDir = join(root, 'repos');
  const workDir = join(root, 'work');
  const home = join(root, 'home');
  await Promise.all([reposDir, workDir, home].map((dir) => mkdir(dir, { recursive: true })));
  const token = `tok_${randomBytes(12).toString('hex')}`;
  const children: ChildProcess[] = [];
  const servers: Server[] = [];
  const ports: number[] = [];
  const gitEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', ...AUTHOR_ENV };
  const git = async (args: string[], cwd?: string): Promise<string> => (await run('git', args, { cwd, env: gitEnv, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(children.map(stopProcessGroup));
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
    await rm(root, { recursive: true, force: true });
  };

  try {
    // git daemon: anonymous git:// clones.
    const daemonPort = await findFreePort();
    const daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--informative-errors', `--base-path=${reposDir}`, '--listen=127.0.0.1', `--port=${daemonPort}`], {
      env: gitEnv,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(daemon);
    let daemonLog = '';
    daemon.stderr!.on('data', (chunk: Buffer) => (daemonLog += chunk.toString()));
    await waitFor(() => portAnswers('127.0.0.1', daemonPort), {
      description: 'git daemon',
      giveUpIf: () => (daemon.exitCode !== null ? `git daemon exited: ${daemonLog}` : undefined),
    });
    ports.push(daemonPort);

    // git http-backend behind Node, on two loopback addresses (the second is "another host").
    const httpPort = await findFreePort();
    const handler = (request: IncomingMessage, response: ServerResponse): void => {
      const url = new URL(request.url ?? '/', 'http://git-host');
      const [, route, ...rest] = url.pathname.split('/');
      const pathInfo = `/${rest.join('/')}`;
      const query = url.search.slice(1);
      if (route === 'hang') {
        // Never answers (a server that hangs); stop() closes the connection.
        request.resume();
      } else if (route === 'redirect') {
        response.writeHead(302, { location: `http://127.0.0.2:${httpPort}/open${pathInfo}${url.search}` }).end();
      } else if (route === 'open') {
        serveGit(request, response, reposDir, pathInfo, query);
      } else if (route === 'git') {
        const header = request.headers.authorization ?? '';
        const basic = /^Basic (.+)$/i.exec(header);
        const password = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
        if (password !== token) {
          response.writeHead(401, { 'www-authenticate': 'Basic realm="devplein test git host"' }).end('token required\n');
          return;
        }
        serveGit(request, response, reposDir, pathInfo, query);
      } else {
        response.writeHead(404).end();
      }
    };
    for (const address of ['127.0.0.1', '127.0.0.2']) {
      const server = createServer(handler);
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(httpPort, address, () => resolve());
      });
    }
    ports.push(httpPort);

    // sshd: deploy-key clones into git-shell.
    let sshPort: number | undefined;
    const sshUser = userInfo().username;
    const authorizedKeys = join(root, 'ssh', 'authorized_keys');
    if (existsSync(SSHD_PATH)) {
      const sshDir = dirname(authorizedKeys);
      await mkdir(sshDir, { recursive: true, mode: 0o700 });
      await writeFile(authorizedKeys, '', { mode: 0o600 });
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host_ed25519')]);
      // sshd wants its privilege separation folder when it runs as root.
      if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
      sshPort = await findFreePort();
      const config = [
        `Port ${sshPort}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(sshDir, 'host_ed25519')}`,
        'PidFile none',
        `AuthorizedKeysFile ${authorizedKeys}`,
        'StrictModes no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        `AllowUsers ${sshUser}`,
        'ForceCommand git-shell -c "$SSH_ORIGINAL_COMMAND"',
        'AllowTcpForwarding no',
        'X11Forwarding no',
        'PermitTTY no',
        'PrintMotd no',
        'LogLevel VERBOSE',
      ];
      const configFile = join(sshDir, 'sshd_config');
      await writeFile(configFile, `${config.join('\n')}\n`);
      const sshd = spawn(SSHD_PATH, ['-D', '-e', '-f', configFile], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(sshd);
      let sshdLog = '';
      sshd.stderr!.on('data', (chunk: Buffer) => (sshdLog += chunk.toString()));
      await waitFor(() => portAnswers('127.0.0.1', sshPort!), {
        description: 'sshd of the test git host',
        giveUpIf: () => (sshd.exitCode !== null ? `sshd exited: ${sshdLog}` : undefined),
      });
      ports.push(sshPort);
    }

    const bare = (name: string): string => join(reposDir, `${name}.git`);
    const writeFiles = async (dir: string, files: RepositoryFiles): Promise<void> => {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), content);
      }
    };
    /** A fresh working copy of the branch's tip (or an empty one on an orphan branch). */
    const commitAndPush = async (
      name: string,
      branch: string,
      files: RepositoryFiles,
      message: string,
      options: { force: boolean; remove?: string[]; submodules?: Submodules },
    ): Promise<string> => {
      const work = await mkdtemp(join(workDir, `${name}-`));
      try {
        await git(['init', '--quiet', '--initial-branch', branch, work]);
        if (!options.force) {
          await git(['fetch', '--quiet', bare(name), branch], work);
          await git(['reset', '--quiet', '--hard', 'FETCH_HEAD'], work);
        }
        for (const path of options.remove ?? []) await rm(join(work, path), { recursive: true, force: true });
        await writeFiles(work, files);
        await git(['add', '--all'], work);
        for (const [path, { url, commit }] of Object.entries(options.submodules ?? {})) {
          await git(['config', '--file', '.gitmodules', `submodule.${path}.path`, path], work);
          await git(['config', '--file', '.gitmodules', `submodule.${path}.url`, url], work);
          await git(['add', '.gitmodules'], work);
          await git(['update-index', '--add', '--cacheinfo', `160000,${commit},${path}`], work);
        }
        await git(['commit', '--quiet', '--allow-empty', '-m', message], work);
        await git(['push', '--quiet', ...(options.force ? ['--force'] : []), bare(name), `HEAD:refs/heads/${branch}`], work);
        return await git(['rev-parse', 'HEAD'], work);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    };

    return {
      reposDir,
      token,
      allowedHosts: [`127.0.0.1:${daemonPort}`, `127.0.0.1:${httpPort}`, ...(sshPort === undefined ? [] : [`127.0.0.1:${sshPort}`])],
      redirectTargetHost: `127.0.0.2:${httpPort}`,
      daemonUrl: (name) => `git://127.0.0.1:${daemonPort}/${name}.git`,
      httpUrl: (name) => `http://127.0.0.1:${httpPort}/git/${name}.git`,
      openHttpUrl: (name) => `http://127.0.0.1:${httpPort}/open/${name}.git`,
      hangingUrl: (name) => `http://127.0.0.1:${httpPort}/hang/${name}.git`,
      redirectUrl: (name) => `http://127.0.0.1:${httpPort}/redirect/${name}.git`,
      sshUrl: (name) => (sshPort === undefined ? undefined : `ssh://${sshUser}@127.0.0.1:${sshPort}${bare(name)}`),
      authorizeKey: async (publicKey) => {
        if (sshPort === undefined) throw new Error(`the test git host has no sshd (${SSHD_PATH} is missing)`);
        await appendFile(authorizedKeys, `${publicKey.trim()}\n`);
      },
      createRepository: async (name, files, options = {}) => {
        const branch = options.branch ?? 'main';
        await git(['init', '--quiet', '--bare', '--initial-branch', branch, bare(name)]);
        return commitAndPush(name, branch, files, options.message ?? 'Eerste versie', { force: true });
      },
      pushCommit: (name, files, options = {}) =>
        commitAndPush(name, options.branch ?? 'main', files, options.message ?? 'Nieuwe versie', { force: false, remove: options.remove, submodules: options.submodules }),
      forcePushTree: (name, files, options = {}) => commitAndPush(name, options.branch ?? 'main', files, options.message ?? 'Nieuwe boom', { force: true }),
      createLargeRepository: async (name, megabytes) => {
        const files: RepositoryFiles = { 'index.html': `<h1>${megabytes} MB</h1>\n` };
        for (let index = 0; index < megabytes; index++) files[`data/blob-${index}.bin`] = randomBytes(1024 * 1024);
        await git(['init', '--quiet', '--bare', '--initial-branch', 'main', bare(name)]);
        return commitAndPush(name, 'main', files, `${megabytes} MB`, { force: true });
      },
      pids: () => children.flatMap((child) => (child.pid === undefined ? [] : [child.pid])),
      ports: () => [...ports],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
