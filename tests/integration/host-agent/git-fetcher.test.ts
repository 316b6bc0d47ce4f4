/**
 * The agent's git driver (host-agent/src/drivers/git) against a real git host on this machine
 * (tests/support/services/git-host.ts: git daemon, git http-backend behind Node, sshd with git-shell):
 * anonymous clone and update, token and deploy-key clones (and their refusal without), a
 * redirect to another host refused, file:// and local paths refused before git runs, the time
 * and size limits, and a forced push of a new tree.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeployKey } from '../../../host-agent/src/drivers/git/deploy-keys.ts';
import type { GitProgressEvent } from '../../../host-agent/src/drivers/git/git-progress.ts';
import { folderBytes, GitFetchError, RepositoryFetcher, type FetchResult, type RepositoryFetcherSettings } from '../../../host-agent/src/drivers/git/repository-fetcher.ts';
import { type GitHost, portAnswers, SSHD_PATH, startGitHost } from '../../support/services/git-host.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { findProcessesWithArgument } from '../../../host-agent/src/drivers/browser/processes.ts';

const run = promisify(execFile);

let host: GitHost;
let state: string;
let settings: RepositoryFetcherSettings;

beforeAll(async () => {
  host = await startGitHost();
  state = await mkdtemp(join(tmpdir(), 'devplein-git-fetcher-'));
  settings = { policy: { allowedHosts: host.allowedHosts, allowHttp: true }, stateDir: join(state, 'agent'), timeoutMs: 60_000, maxBytes: 50 * 1024 * 1024 };
});

afterAll(async () => {
  await host?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

const checkout = (name: string): string => join(state, 'checkouts', name);

async function expectFailure(promise: Promise<FetchResult>, reason: GitFetchError['reason']): Promise<GitFetchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitFetchError);
  expect((error as GitFetchError).reason, (error as GitFetchError).gitMessages.join('\n')).toBe(reason);
  return error as GitFetchError;
}

describe('the test git host', () => {
  it('serves the same repository over git://, token HTTP and SSH, and refuses HTTP without the token', async () => {
    const hash = await host.createRepository('host-check', { 'index.html': 'hallo\n' });
    const lsRemote = async (url: string): Promise<string> =>
      (await run('git', ['ls-remote', url, 'refs/heads/main'], { env: { PATH: process.env.PATH, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' } })).stdout.split('\t')[0]!;
    expect(await lsRemote(host.daemonUrl('host-check'))).toBe(hash);
    expect(await lsRemote(host.openHttpUrl('host-check'))).toBe(hash);
    expect(await lsRemote(host.httpUrl('host-check').replace('http://', `http://student:${host.token}@`))).toBe(hash);
    await expect(lsRemote(host.httpUrl('host-check'))).rejects.toThrow();
    // Plain git follows the redirect to the other host: the route works, the fetcher must refuse it.
    expect(await lsRemote(host.redirectUrl('host-check'))).toBe(hash);
    const response = await fetch(host.redirectUrl('host-check') + '/info/refs?service=git-upload-pack', { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/open\/host-check\.git\//);
  });
});

describe('RepositoryFetcher', () => {
  it('clones anonymously (the default branch), reports progress and names the commit', async () => {
    const hash = await host.createRepository('anon', { 'index.html': '<h1>Versie 1</h1>\n', 'css/site.css': 'body{}\n' }, { message: 'Eerste versie van de site' });
    const events: GitProgressEvent[] = [];
    const fetcher = new RepositoryFetcher(settings);
    const result = await fetcher.fetch({ address: host.daemonUrl('anon'), checkoutDir: checkout('anon'), onProgress: (event) => events.push(event) });
    expect(result.kind).toBe('clone');
    expect(result.commit).toMatchObject({ hash, subject: 'Eerste versie van de site', author: 'Student Test', authorEmail: 'student@school.test' });
    expect(Number.isNaN(Date.parse(result.commit.time))).toBe(false);
    expect(await readFile(join(checkout('anon'), 'index.html'), 'utf8')).toBe('<h1>Versie 1</h1>\n');
    expect(events.some((event) => event.phase === 'receiving' || event.phase === 'counting' || event.phase === 'enumerating')).toBe(true);
    // Shallow: one commit only.
    const { stdout } = await run('git', ['-C', checkout('anon'), 'rev-list', '--count', 'HEAD']);
    expect(stdout.trim()).toBe('1');

    const second = await host.pushCommit('anon', { 'index.html': '<h1>Versie 2</h1>\n' }, { message: 'Tweede versie', remove: ['css/site.css'] });
    const update = await fetcher.fetch({ address: host.daemonUrl('anon'), checkoutDir: checkout('anon') });
    expect(update).toMatchObject({ kind: 'update', commit: { hash: second, subject: 'Tweede versie' } });
    expect(await readFile(join(checkout('anon'), 'index.html'), 'utf8')).toBe('<h1>Versie 2</h1>\n');
    expect(existsSync(join(checkout('anon'), 'css/site.css'))).toBe(false);
  });

  it('clones a named branch and fetches a forced push of a new tree', async () => {
    await host.createRepository('forced', { 'index.html': 'oud\n', 'oud.txt': 'weg\n' }, { branch: 'productie' });
    const fetcher = new RepositoryFetcher(settings);
    await fetcher.fetch({ address: host.daemonUrl('forced'), branch: 'productie', checkoutDir: checkout('forced') });
    const forced = await host.forcePushTree('forced', { 'index.html': 'nieuw\n', 'map/nieuw.txt': 'ja\n' }, { branch: 'productie', message: 'Alles opnieuw' });
    const result = await fetcher.fetch({ address: host.daemonUrl('forced'), branch: 'productie', checkoutDir: checkout('forced') });
    expect(result.commit).toMatchObject({ hash: forced, subject: 'Alles opnieuw' });
    expect(await readFile(join(checkout('forced'), 'index.html'), 'utf8')).toBe('nieuw\n');
    expect(existsSync(join(checkout('forced'), 'oud.txt'))).toBe(false);
    expect(existsSync(join(checkout('forced'), 'map/nieuw.txt'))).toBe(true);
    await expectFailure(fetcher.fetch({ address: host.daemonUrl('forced'), branch: 'bestaat-niet', checkoutDir: checkout('forced-missing') }), 'not-found');
  });

  it('drops old objects once they outweigh the files twice over (forced pushes of new trees)', async () => {
    const first = await host.createLargeRepository('repacked', 3);
    const fetcher = new RepositoryFetcher(settings);
    await fetcher.fetch({ address: host.daemonUrl('repacked'), checkoutDir: checkout('repacked') });
    const tree = (): Record<string, Buffer> => Object.fromEntries([0, 1, 2].map((index) => [`data/blob-${index}.bin`, randomBytes(1024 * 1024)]));
    await host.forcePushTree('repacked', tree());
    await fetcher.fetch({ address: host.daemonUrl('repacked'), checkoutDir: checkout('repacked') });
    const last = await host.forcePushTree('repacked', tree());
    const result = await fetcher.fetch({ address: host.daemonUrl('repacked'), checkoutDir: checkout('repacked') });
    expect(result.commit.hash).toBe(last);
    const gitBytes = await folderBytes(join(checkout('repacked'), '.git'));
    expect(gitBytes).toBeLessThan(2 * (result.bytes - gitBytes));
    await expect(run('git', ['-C', checkout('repacked'), 'cat-file', '-e', `${first}^{tree}`])).rejects.toThrow();
  });

  it('clones over HTTP with a token, and not without it', async () => {
    const hash = await host.createRepository('private-http', { 'index.html': 'geheim\n' });
    const fetcher = new RepositoryFetcher(settings);
    await expectFailure(fetcher.fetch({ address: host.httpUrl('private-http'), checkoutDir: checkout('private-http') }), 'auth');
    await expectFailure(fetcher.fetch({ address: host.httpUrl('private-http'), checkoutDir: checkout('private-http'), credentials: { kind: 'token', token: 'fout' } }), 'auth');
    expect(existsSync(checkout('private-http'))).toBe(false);
    const result = await fetcher.fetch({ address: host.httpUrl('private-http'), checkoutDir: checkout('private-http'), credentials: { kind: 'token', token: host.token } });
    expect(result.commit.hash).toBe(hash);
    // The token is not stored in the checkout.
    expect(await readFile(join(checkout('private-http'), '.git', 'config'), 'utf8')).not.toContain(host.token);
    const second = await host.pushCommit('private-http', { 'index.html': 'geheim 2\n' });
    const update = await fetcher.fetch({ address: host.httpUrl('private-http'), checkoutDir: checkout('private-http'), credentials: { kind: 'token', token: host.token } });
    expect(update.commit.hash).toBe(second);
  });

  it.skipIf(!existsSync(SSHD_PATH))('clones over SSH with the deploy key, and not without it', async () => {
    const hash = await host.createRepository('private-ssh', { 'index.html': 'ssh\n' });
    await mkdir(join(state, 'keys'), { recursive: true });
    const key = await createDeployKey(join(state, 'keys', 'project-1'), 'devplein-project-1');
    expect(key.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\S+ devplein-project-1$/);
    const other = await createDeployKey(join(state, 'keys', 'project-2'), 'devplein-project-2');
    await host.authorizeKey(key.publicKey);
    const fetcher = new RepositoryFetcher(settings);
    const address = host.sshUrl('private-ssh')!;
    await expectFailure(fetcher.fetch({ address, checkoutDir: checkout('private-ssh') }), 'auth');
    await expectFailure(fetcher.fetch({ address, checkoutDir: checkout('private-ssh'), credentials: { kind: 'deploy-key', privateKeyPath: other.privateKeyPath } }), 'auth');
    const result = await fetcher.fetch({ address, checkoutDir: checkout('private-ssh'), credentials: { kind: 'deploy-key', privateKeyPath: key.privateKeyPath } });
    expect(result.commit.hash).toBe(hash);
    // The host key was remembered in the agent's state, not in a user's ~/.ssh.
    expect(await readFile(join(settings.stateDir, 'known_hosts'), 'utf8')).toContain('ssh-ed25519');
  });

  it('does not fetch submodules, on an update nor on a fresh clone', async () => {
    const library = await host.createRepository('library', { 'lib.js': 'export {};\n' });
    await host.createRepository('with-submodule', { 'index.html': 'met submodule\n' });
    const fetcher = new RepositoryFetcher(settings);
    await fetcher.fetch({ address: host.daemonUrl('with-submodule'), checkoutDir: checkout('with-submodule') });
    // One submodule on the same (allowed) host, one as a local path: neither is fetched.
    await host.pushCommit('with-submodule', { 'index.html': 'met submodules\n' }, {
      submodules: { 'vendor/library': { url: host.daemonUrl('library'), commit: library }, 'vendor/local': { url: `${host.reposDir}/library.git`, commit: library } },
    });
    const result = await fetcher.fetch({ address: host.daemonUrl('with-submodule'), checkoutDir: checkout('with-submodule') });
    expect(await readFile(join(checkout('with-submodule'), '.gitmodules'), 'utf8')).toContain('vendor/library');
    expect(existsSync(join(checkout('with-submodule'), 'vendor/library/lib.js'))).toBe(false);
    expect(existsSync(join(checkout('with-submodule'), 'vendor/local/lib.js'))).toBe(false);
    expect(existsSync(join(checkout('with-submodule'), '.git', 'modules'))).toBe(false);
    expect(result.commit.subject).toBe('Nieuwe versie');
    const fresh = await fetcher.fetch({ address: host.daemonUrl('with-submodule'), checkoutDir: checkout('with-submodule-fresh') });
    expect(fresh.commit.hash).toBe(result.commit.hash);
    expect(existsSync(join(checkout('with-submodule-fresh'), 'vendor/library/lib.js'))).toBe(false);
  });

  it('refuses a redirect to another host', async () => {
    await host.createRepository('redirected', { 'index.html': 'elders\n' });
    const fetcher = new RepositoryFetcher(settings);
    await expectFailure(fetcher.fetch({ address: host.redirectUrl('redirected'), checkoutDir: checkout('redirected') }), 'redirect');
    expect(existsSync(checkout('redirected'))).toBe(false);
  });

  it('refuses file://, local paths, transports and other hosts before git runs', async () => {
    await host.createRepository('local', { 'index.html': 'lokaal\n' });
    // A git that does not exist: were it run, the failure would be "git kon niet starten".
    const fetcher = new RepositoryFetcher({ ...settings, gitPath: join(state, 'no-such-git') });
    for (const address of [`file://${host.reposDir}/local.git`, `${host.reposDir}/local.git`, './local.git', 'ext::sh -c id', 'fd::3', '--upload-pack=id', 'git://127.0.0.2/local.git']) {
      await expectFailure(fetcher.fetch({ address, checkoutDir: checkout('local') }), 'address-refused');
    }
    await expectFailure(fetcher.fetch({ address: host.daemonUrl('local'), branch: '--upload-pack=id', checkoutDir: checkout('local') }), 'bad-branch');
    expect(existsSync(checkout('local'))).toBe(false);
  });

  it('ends a clone over the size limit and leaves no half folder', async () => {
    await host.createLargeRepository('large', 12);
    const fetcher = new RepositoryFetcher({ ...settings, maxBytes: 4 * 1024 * 1024 });
    await expectFailure(fetcher.fetch({ address: host.daemonUrl('large'), checkoutDir: checkout('large') }), 'too-large');
    expect((await readdir(join(state, 'checkouts'))).filter((name) => name.startsWith('large'))).toEqual([]);
  });

  it('ends a clone from a server that never answers at the time limit, with git\'s helper processes', async () => {
    const address = host.hangingUrl('hanging');
    const fetcher = new RepositoryFetcher({ ...settings, timeoutMs: 5_000 });
    let settled = false;
    const fetching = fetcher.fetch({ address, checkoutDir: checkout('hanging') });
    void fetching.finally(() => (settled = true)).catch(() => undefined);
    // git hands the address to git-remote-http, which waits for the answer.
    await waitFor(() => findProcessesWithArgument(address).length > 0, {
      description: 'git-remote-http for the hanging server',
      giveUpIf: () => (settled ? 'the fetch ended before its helper was seen' : undefined),
    });
    const helpers = findProcessesWithArgument(address);
    await expectFailure(fetching, 'timeout');
    for (const pid of helpers) expect(processAlive(pid)).toBe(false);
    expect((await readdir(join(state, 'checkouts'))).filter((name) => name.startsWith('hanging'))).toEqual([]);
  });

  it('ends a clone over the time limit, with its processes, and leaves no half folder', async () => {
    await host.createRepository('slow', { 'index.html': 'traag\n' });
    // A git that hangs after starting a child in its group, standing in for a server that never answers.
    const slowGit = join(state, 'slow-git');
    await writeFile(slowGit, `#!/bin/sh\nfor a; do last="$a"; done\nmkdir -p "$last"\nsleep 600 &\necho $! > "${state}/slow-child.pid"\nwait\n`);
    await chmod(slowGit, 0o755);
    const fetcher = new RepositoryFetcher({ ...settings, gitPath: slowGit, timeoutMs: 1_000 });
    await expectFailure(fetcher.fetch({ address: host.daemonUrl('slow'), checkoutDir: checkout('slow') }), 'timeout');
    expect((await readdir(join(state, 'checkouts'))).filter((name) => name.startsWith('slow'))).toEqual([]);
    const childPid = Number(await readFile(join(state, 'slow-child.pid'), 'utf8'));
    expect(processAlive(childPid)).toBe(false);
  });
});

describe('stopping the git host', () => {
  it('leaves no process and no port behind', async () => {
    const second = await startGitHost();
    const pids = second.pids();
    const ports = second.ports();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await second.stop();
    for (const pid of pids) expect(processAlive(pid)).toBe(false);
    for (const port of ports) expect(await portAnswers('127.0.0.1', port)).toBe(false);
    expect(existsSync(second.reposDir)).toBe(false);
  });
});

/** Whether `pid` runs (a zombie waiting for a reaper that is not there counts as ended). */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
