/**
 * The agent's git work on the host (issue 23): a shallow clone of a project's repository into a
 * folder of the agent's state, and later a shallow fetch + reset of that checkout.
 *
 * git runs hardened, with nothing from the machine's or a user's configuration:
 * - the address passes the shared rule (repository-address.ts) before git runs, and git gets the
 *   address rebuilt from its parts;
 * - `protocol.allow=never` with only the address's own transport re-enabled (`file` never),
 *   `http.followRedirects=false`, submodules off, hooks off (`core.hooksPath=/dev/null`),
 *   no credential helpers, objects checked (`transfer.fsckObjects`);
 * - `GIT_CONFIG_NOSYSTEM=1`, `GIT_CONFIG_GLOBAL=/dev/null`, HOME in the agent's state,
 *   `GIT_TERMINAL_PROMPT=0`, no inherited environment beyond PATH;
 * - a deploy key goes through `GIT_SSH_COMMAND` (only that key, known hosts in the agent's state),
 *   a token as a one-shot `http.extraHeader` through `GIT_CONFIG_COUNT/KEY/VALUE` (never on the
 *   command line, never stored in the checkout's config);
 * - a time limit (the whole process group is killed) and a size limit (the folder is measured
 *   while git runs); a failed clone leaves no folder behind, a failed update leaves the checkout
 *   at its old commit.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GitProgressReader, type GitProgressEvent } from './git-progress.ts';
import { isSafeBranchName } from '@devplein/contract/validation/repositoryAddress';
import { parseRepositoryAddress, RepositoryAddressError, type RepositoryAddress, type RepositoryAddressPolicy } from './repository-address.ts';

export type GitCredentials =
  | { kind: 'anonymous' }
  /** HTTPS with a token, sent as Basic auth (`username` defaults to `x-access-token`, which GitHub, Gitea and GitLab accept). */
  | { kind: 'token'; token: string; username?: string }
  /** SSH with a deploy key (path to the private key, mode 0600). */
  | { kind: 'deploy-key'; privateKeyPath: string };

export interface RepositoryFetcherSettings {
  policy: RepositoryAddressPolicy;
  /** A folder of the agent's state for git's HOME and SSH's known hosts. */
  stateDir: string;
  /** Time limit of one clone or update, including the checkout. */
  timeoutMs: number;
  /** Size limit of the checkout folder (with its .git). */
  maxBytes: number;
  /** How often the folder is measured while git runs (default 200 ms). */
  sizeCheckIntervalMs?: number;
  /** The git program (default `git` from PATH). */
  gitPath?: string;
  /** The ssh program (default `ssh` from PATH). */
  sshPath?: string;
  /**
   * Run git (and its ssh) as this user instead of the agent's own (the agent must be root): the
   * folders the fetcher makes for git are given to it. Undefined: as the agent.
   */
  runAs?: { uid: number; gid: number };
  /**
   * Called once per fetch, before git runs, with the address git will connect to; returns what to
   * call when the fetch ends (the git user's firewall opens the way for that one fetch).
   */
  openWay?: (address: RepositoryAddress) => Promise<() => Promise<void>>;
}

export interface FetchRequest {
  /** The clone address as the project stores it; checked again here. */
  address: string;
  /** A branch name; the repository's default branch when absent. */
  branch?: string;
  /**
   * A full commit hash to check out instead of the branch's newest commit (roll back): fetched
   * with `git fetch --depth 1 <address> <hash>`, which the server must allow (reachable commits).
   */
  commit?: string;
  /** Where the checkout lives; cloned when it does not exist, updated when it does. */
  checkoutDir: string;
  credentials?: GitCredentials;
  onProgress?: (event: GitProgressEvent) => void;
  signal?: AbortSignal;
}

export interface FetchedCommit {
  hash: string;
  subject: string;
  author: string;
  authorEmail: string;
  /** Author time, ISO 8601 with offset. */
  time: string;
}

export interface FetchResult {
  kind: 'clone' | 'update';
  commit: FetchedCommit;
  /** Size of the checkout folder afterwards, in bytes. */
  bytes: number;
}

export type GitFetchFailure =
  | 'address-refused'
  | 'bad-branch'
  | 'bad-commit'
  | 'bad-credentials'
  | 'timeout'
  | 'too-large'
  | 'cancelled'
  | 'auth'
  | 'not-found'
  | 'redirect'
  | 'git-failed';

export class GitFetchError extends Error {
  constructor(
    readonly reason: GitFetchFailure,
    message: string,
    /** git's last messages (not progress), for the log. */
    readonly gitMessages: string[] = [],
  ) {
    super(message);
    this.name = 'GitFetchError';
  }
}

/** The fetch was broken off by its caller (a cancelled deploy). */
export function cancelledFetch(): GitFetchError {
  return new GitFetchError('cancelled', 'Het ophalen van de repository is afgebroken.');
}


/** Bytes of regular files under `dir` (symbolic links count as themselves); 0 when it is gone. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else total += await lstat(path).then((info) => info.size, () => 0);
  }
  return total;
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

interface RunOutcome {
  stdout: string;
  messages: string[];
}

export class RepositoryFetcher {
  constructor(private readonly settings: RepositoryFetcherSettings) {}

  /** Clones into `checkoutDir` when it has no checkout yet, otherwise fetches and resets it. */
  async fetch(request: FetchRequest): Promise<FetchResult> {
    let address: RepositoryAddress;
    try {
      address = parseRepositoryAddress(request.address, this.settings.policy);
    } catch (error) {
      if (error instanceof RepositoryAddressError) throw new GitFetchError('address-refused', error.message);
      throw error;
    }
    if (request.branch !== undefined && !isSafeBranchName(request.branch)) {
      throw new GitFetchError('bad-branch', `"${request.branch}" is geen geldige branchnaam.`);
    }
    if (request.commit !== undefined && !/^[0-9a-f]{40}$/.test(request.commit)) {
      throw new GitFetchError('bad-commit', `"${request.commit}" is geen volledige commit-hash (40 tekens 0-9 en a-f).`);
    }
    const credentials = request.credentials ?? { kind: 'anonymous' };
    if (credentials.kind === 'token' && address.protocol !== 'https' && address.protocol !== 'http') {
      throw new GitFetchError('bad-credentials', 'Een token werkt alleen met een https://-adres.');
    }
    if (credentials.kind === 'deploy-key' && address.protocol !== 'ssh') {
      throw new GitFetchError('bad-credentials', 'Een deploy key werkt alleen met een SSH-adres (ssh://… of git@server:pad).');
    }
    const deadline = Date.now() + this.settings.timeoutMs;
    const env = await this.environment(address, credentials);
    const existing = await stat(join(request.checkoutDir, '.git')).then(
      (info) => info.isDirectory(),
      () => false,
    );
    const close = this.settings.openWay ? await this.settings.openWay(address) : undefined;
    try {
      let result: FetchResult;
      if (request.commit !== undefined) result = await this.fetchCommit(request, request.commit, address, env, deadline, existing);
      else result = existing ? await this.update(request, address, env, deadline) : await this.clone(request, address, env, deadline);
      return result;
    } finally {
      await close?.();
    }
  }

  /** A folder git (as `runAs`) may write in. */
  private async gitDir(dir: string, mode = 0o755): Promise<void> {
    await mkdir(dir, { recursive: true, mode });
    if (this.settings.runAs) await chown(dir, this.settings.runAs.uid, this.settings.runAs.gid);
  }

  /**
   * One commit by its hash (roll back): into the existing checkout, or a new one made with
   * `git init` + the same fetch. A server that does not give it: not-found, the checkout as it was.
   */
  private async fetchCommit(request: FetchRequest, commit: string, address: RepositoryAddress, env: NodeJS.ProcessEnv, deadline: number, existing: boolean): Promise<FetchResult> {
    const notGiven = (error: unknown): never => {
      if (error instanceof GitFetchError && (error.reason === 'not-found' || error.reason === 'git-failed')) {
        throw new GitFetchError('not-found', `De Git-server gaf commit ${commit.slice(0, 8)} niet (niet meer in de repository, of de server geeft geen oude commits).`, error.gitMessages);
      }
      throw error;
    };
    if (existing) {
      const result = await this.update(request, address, env, deadline, commit).catch(notGiven);
      if (result.commit.hash !== commit) throw new GitFetchError('git-failed', `git haalde ${result.commit.hash.slice(0, 8)} op in plaats van ${commit.slice(0, 8)}.`);
      return result;
    }
    await this.gitDir(dirname(request.checkoutDir));
    await rm(request.checkoutDir, { recursive: true, force: true });
    const partial = `${request.checkoutDir}.partial-${randomBytes(4).toString('hex')}`;
    try {
      await this.gitDir(partial);
      await this.runGit([...this.hardening(address), 'init', '--quiet', '--template=', partial], { env, deadline, request });
      const result = await this.update({ ...request, checkoutDir: partial }, address, env, deadline, commit).catch(notGiven);
      if (result.commit.hash !== commit) throw new GitFetchError('git-failed', `git haalde ${result.commit.hash.slice(0, 8)} op in plaats van ${commit.slice(0, 8)}.`);
      await rename(partial, request.checkoutDir);
      return { ...result, kind: 'clone' };
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }

  private async clone(request: FetchRequest, address: RepositoryAddress, env: NodeJS.ProcessEnv, deadline: number): Promise<FetchResult> {
    await this.gitDir(dirname(request.checkoutDir));
    await rm(request.checkoutDir, { recursive: true, force: true });
    const partial = `${request.checkoutDir}.partial-${randomBytes(4).toString('hex')}`;
    try {
      const branch = request.branch !== undefined ? ['--branch', request.branch] : [];
      await this.runGit(
        [...this.hardening(address), 'clone', '--progress', '--template=', '--depth', '1', '--single-branch', '--no-tags', '--no-recurse-submodules', ...branch, '--', address.url, partial],
        { env, deadline, watchDir: partial, request },
      );
      // No remote in the checkout: each update names the address again (checked again), and no
      // remote-tracking ref keeps the first commit's objects alive.
      await this.runGit([...this.hardening(address), '-C', partial, 'remote', 'remove', 'origin'], { env, deadline, request });
      const commit = await this.headCommit(partial, address, env, deadline, request);
      const bytes = await this.checkSize(partial);
      await rename(partial, request.checkoutDir);
      return { kind: 'clone', commit, bytes };
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }

  private async update(request: FetchRequest, address: RepositoryAddress, env: NodeJS.ProcessEnv, deadline: number, wanted?: string): Promise<FetchResult> {
    const dir = request.checkoutDir;
    const ref = wanted ?? (request.branch !== undefined ? `refs/heads/${request.branch}` : 'HEAD');
    try {
      await this.runGit([...this.hardening(address), '-C', dir, 'fetch', '--progress', '--depth', '1', '--no-tags', '--no-recurse-submodules', '--', address.url, ref], {
        env,
        deadline,
        watchDir: dir,
        request,
      });
    } catch (error) {
      // A killed fetch may leave its temporary pack; the working tree was not touched.
      const packs = join(dir, '.git', 'objects', 'pack');
      const leftovers = await readdir(packs).catch(() => []);
      await Promise.all(leftovers.filter((name) => name.startsWith('tmp_')).map((name) => rm(join(packs, name), { force: true })));
      throw error;
    }
    await this.runGit([...this.hardening(address), '-C', dir, 'reset', '--hard', '--quiet', 'FETCH_HEAD'], { env, deadline, watchDir: dir, request });
    await this.runGit([...this.hardening(address), '-C', dir, 'clean', '-ffdxq'], { env, deadline, watchDir: dir, request });
    // Old commits' objects pile up in .git: once they outweigh the files twice over (a forced push
    // of a new tree, many updates) or the folder is over the limit, drop what HEAD does not need.
    // Not on every update: repacking a 50 MB repository doubled the time of a one-file update.
    const gitBytes = await folderBytes(join(dir, '.git'));
    const totalBytes = await folderBytes(dir);
    if (gitBytes > 2 * (totalBytes - gitBytes) + 1024 * 1024 || totalBytes > this.settings.maxBytes) {
      await Promise.all(['ORIG_HEAD', 'FETCH_HEAD'].map((name) => rm(join(dir, '.git', name), { force: true })));
      await this.runGit([...this.hardening(address), '-C', dir, 'reflog', 'expire', '--expire=now', '--all'], { env, deadline, watchDir: dir, request });
      await this.runGit([...this.hardening(address), '-C', dir, 'gc', '--prune=now', '--quiet'], { env, deadline, request });
    }
    const commit = await this.headCommit(dir, address, env, deadline, request);
    const bytes = await this.checkSize(dir);
    return { kind: 'update', commit, bytes };
  }

  private async checkSize(dir: string): Promise<number> {
    const bytes = await folderBytes(dir);
    if (bytes > this.settings.maxBytes) throw this.tooLarge();
    return bytes;
  }

  private tooLarge(): GitFetchError {
    const megabytes = Math.round(this.settings.maxBytes / 1024 / 1024);
    return new GitFetchError('too-large', `De repository is groter dan de grens van ${megabytes} MB.`);
  }

  private async headCommit(dir: string, address: RepositoryAddress, env: NodeJS.ProcessEnv, deadline: number, request: FetchRequest): Promise<FetchedCommit> {
    const { stdout } = await this.runGit([...this.hardening(address), '-C', dir, 'log', '-1', '--format=%H%x00%an%x00%ae%x00%aI%x00%s'], { env, deadline, request });
    const [hash, author, authorEmail, time, subject] = stdout.replace(/\n$/, '').split('\0');
    if (!hash || !/^[0-9a-f]{40,64}$/.test(hash)) throw new GitFetchError('git-failed', 'git gaf geen commit na het ophalen.');
    return { hash, subject: subject ?? '', author: author ?? '', authorEmail: authorEmail ?? '', time: time ?? '' };
  }

  /** `-c` settings for every git call: only this address's transport, nothing that runs code. */
  private hardening(address: RepositoryAddress): string[] {
    const settings = [
      'protocol.allow=never',
      `protocol.${address.protocol}.allow=always`,
      'protocol.file.allow=never',
      'http.followRedirects=false',
      'core.hooksPath=/dev/null',
      'core.fsmonitor=false',
      'credential.helper=',
      'submodule.recurse=false',
      'fetch.recurseSubmodules=false',
      'transfer.fsckObjects=true',
      'gc.auto=0',
      'maintenance.auto=false',
      'advice.detachedHead=false',
    ];
    return settings.flatMap((setting) => ['-c', setting]);
  }

  private async environment(address: RepositoryAddress, credentials: GitCredentials): Promise<NodeJS.ProcessEnv> {
    await this.gitDir(this.settings.stateDir, 0o700);
    const home = join(this.settings.stateDir, 'git-home');
    await this.gitDir(home, 0o700);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: home,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PROTOCOL_FROM_USER: '0',
    };
    if (address.protocol === 'ssh') {
      const knownHosts = join(this.settings.stateDir, 'known_hosts');
      const identity = credentials.kind === 'deploy-key' ? ['-i', shellQuote(credentials.privateKeyPath)] : ['-o', 'IdentityFile=none'];
      env.GIT_SSH_VARIANT = 'ssh';
      env.GIT_SSH_COMMAND = [
        shellQuote(this.settings.sshPath ?? 'ssh'),
        '-F', '/dev/null',
        ...identity,
        '-o', 'IdentitiesOnly=yes',
        '-o', 'BatchMode=yes',
        '-o', 'StrictHostKeyChecking=accept-new',
        '-o', `UserKnownHostsFile=${shellQuote(knownHosts)}`,
        '-o', 'ConnectTimeout=20',
        '-o', 'ProxyCommand=none',
        '-o', 'PermitLocalCommand=no',
        '-o', 'ClearAllForwardings=yes',
      ].join(' ');
    }
    if (credentials.kind === 'token') {
      const basic = Buffer.from(`${credentials.username ?? 'x-access-token'}:${credentials.token}`).toString('base64');
      env.GIT_CONFIG_COUNT = '1';
      env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
      env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
    }
    return env;
  }

  /** Runs git in its own process group under the deadline (and the size limit when `watchDir` is set). */
  private runGit(
    args: string[],
    options: { env: NodeJS.ProcessEnv; deadline: number; watchDir?: string; request: FetchRequest },
  ): Promise<RunOutcome> {
    const { request } = options;
    return new Promise<RunOutcome>((resolve, reject) => {
      let stopped: GitFetchError | undefined;
      const reader = new GitProgressReader((event) => request.onProgress?.(event));
      const runAs = this.settings.runAs ? { uid: this.settings.runAs.uid, gid: this.settings.runAs.gid } : {};
      const child = spawn(this.settings.gitPath ?? 'git', args, { env: options.env, cwd: this.settings.stateDir, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
      const stop = (error: GitFetchError): void => {
        if (stopped) return;
        stopped = error;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const remaining = options.deadline - Date.now();
      const timer = setTimeout(() => stop(new GitFetchError('timeout', `Het ophalen van de repository duurde langer dan ${Math.round(this.settings.timeoutMs / 1000)} seconden.`)), Math.max(0, remaining));
      let measuring = false;
      const sizeTimer =
        options.watchDir === undefined
          ? undefined
          : setInterval(() => {
              if (measuring) return;
              measuring = true;
              void folderBytes(options.watchDir!).then((bytes) => {
                measuring = false;
                if (bytes > this.settings.maxBytes) stop(this.tooLarge());
              });
            }, this.settings.sizeCheckIntervalMs ?? 200);
      const onAbort = (): void => stop(cancelledFetch());
      if (request.signal?.aborted) onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (stdout.length < 1_000_000) stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => reader.push(chunk));
      const finish = (): void => {
        clearTimeout(timer);
        if (sizeTimer) clearInterval(sizeTimer);
        request.signal?.removeEventListener('abort', onAbort);
        reader.end();
      };
      child.on('error', (error) => {
        finish();
        reject(new GitFetchError('git-failed', `git kon niet starten: ${error.message}`));
      });
      child.on('close', (code) => {
        finish();
        const messages = reader.messages();
        if (stopped) reject(new GitFetchError(stopped.reason, stopped.message, messages));
        else if (code === 0) resolve({ stdout, messages });
        else reject(classifyFailure(messages));
      });
    });
  }
}

/** What git's messages say went wrong, with a Dutch message. */
export function classifyFailure(messages: string[]): GitFetchError {
  const text = messages.join('\n');
  if (/returned error: 30\d|^warning: redirecting to/im.test(text)) {
    return new GitFetchError('redirect', 'De Git-server stuurde door naar een ander adres; doorsturen is niet toegestaan.', messages);
  }
  if (/Authentication failed|could not read (Username|Password)|Permission denied|returned error: 40[13]|terminal prompts disabled|Host key verification failed/i.test(text)) {
    return new GitFetchError('auth', 'De Git-server weigerde de toegang: controleer de deploy key of het token.', messages);
  }
  if (/not our ref|unadvertised object|upload-pack: not|no such remote ref/i.test(text)) {
    return new GitFetchError('not-found', 'De Git-server gaf deze commit niet.', messages);
  }
  if (/not found|does not appear to be a git repository|does not exist|returned error: 404|couldn't find remote ref|access denied or repository not exported/i.test(text)) {
    return new GitFetchError('not-found', 'De repository of branch is niet gevonden.', messages);
  }
  return new GitFetchError('git-failed', `git faalde: ${messages.at(-1) ?? 'onbekende fout'}`, messages);
}
