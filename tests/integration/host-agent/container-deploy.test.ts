/**
 * The container deployer (host-agent/src/drivers/deploy, issue 23 part 2) against the real Docker
 * engine with the static busybox image (httpd serving /www) and the test git host: a clone by
 * RepositoryFetcher deployed into /www and served, an update, kept paths, a failing after-update
 * command that keeps the old site, and a deploy stopped between copy and swap.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerDeployer, DeployError, type DeployProgress, type DeployRequest, type DeployResult } from '../../../host-agent/src/drivers/deploy/container-deployer.ts';
import { RepositoryFetcher } from '../../../host-agent/src/drivers/git/repository-fetcher.ts';
import { execIn } from '../../support/clients/container-exec.ts';
import { DockerEngine } from '../../../host-agent/src/drivers/docker/engine.ts';
import { ensureBusyboxImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { type GitHost, startGitHost } from '../../support/services/git-host.ts';
import { waitFor } from '../../support/clients/ports.ts';

// A tag of its own: devplein/static:latest is npm start's demo image (its page is what the start test reads).
const STATIC_IMAGE = 'devplein-test/static-deploy:1';

let host: GitHost;
let state: string;
let docker: Docker;
let fetcher: RepositoryFetcher;
const suffix = randomSuffix();
const containers: Docker.Container[] = [];

beforeAll(async () => {
  requireDockerEngine();
  docker = testDocker();
  await ensureBusyboxImage(STATIC_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www']);
  host = await startGitHost();
  state = await mkdtemp(join(tmpdir(), 'devplein-container-deploy-'));
  fetcher = new RepositoryFetcher({ policy: { allowedHosts: host.allowedHosts, allowHttp: true }, stateDir: join(state, 'agent'), timeoutMs: 60_000, maxBytes: 50 * 1024 * 1024 });
});

afterAll(async () => {
  for (const container of containers) await container.remove({ force: true }).catch(() => undefined);
  await host?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

/** A running managed container of the static image, with a unique name. */
async function makeSite(name: string): Promise<Docker.Container> {
  const container = await docker.createContainer({
    name: `deploy-${name}-${suffix}`,
    Image: STATIC_IMAGE,
    Labels: { 'devplein.managed': 'true', 'devplein.project-id': '0' },
    HostConfig: { Init: true },
  });
  containers.push(container);
  await container.start();
  return container;
}

/** Runs a command in the container as root; its stdout (stderr appended). */
const run = (container: Docker.Container, cmd: string[]): Promise<{ exitCode: number; output: string }> => execIn(docker, container, cmd);

/** The page busybox httpd serves in the container (once httpd listens again after a restart). */
async function page(container: Docker.Container, path = '/'): Promise<string> {
  await waitFor(async () => (await run(container, ['sh', '-c', 'netstat -ltn | grep -q ":80 "'])).exitCode === 0, { description: 'httpd to listen on :80' });
  const result = await run(container, ['wget', '-qO-', `http://127.0.0.1${path}`]);
  expect(result.exitCode, result.output).toBe(0);
  return result.output;
}

/** What lies beside /www (leftover staging or previous folders show up here). */
async function besideWebRoot(container: Docker.Container): Promise<string[]> {
  return (await run(container, ['ls', '-a', '/'])).output.split('\n').filter((name) => name.startsWith('www'));
}

async function clone(repo: string): Promise<string> {
  const dir = join(state, 'checkouts', repo);
  await fetcher.fetch({ address: host.daemonUrl(repo), checkoutDir: dir });
  return dir;
}

/** A deploy and the end of its turn: the previous tree is removed after the answer. */
async function deployAndSettle(deployer: ContainerDeployer, request: DeployRequest): Promise<DeployResult> {
  const result = await deployer.deploy(request);
  await deployer.idle(request.containerId);
  return result;
}

describe('ContainerDeployer', () => {
  it('deploys a cloned repository into /www, served by the container, and an update after a push', async () => {
    await host.createRepository('site', { 'index.html': '<h1>Versie 1</h1>\n', 'css/site.css': 'body{}\n' });
    const checkout = await clone('site');
    const container = await makeSite('update');
    expect(await page(container)).toContain('devplein');
    const events: DeployProgress[] = [];
    const deployer = new ContainerDeployer({ docker: new DockerEngine(docker) });
    const first = await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' }, onProgress: (event) => events.push(event) });
    // busybox httpd chdirs into /www once at start: after the swap it still works in the old
    // folder (it would answer 404), so the container is restarted.
    expect(first).toMatchObject({ files: 2, bytes: 18 + 7, kept: [], skipped: [], restarted: true });
    expect(first.heldOldRoot).toEqual([expect.stringMatching(/^\d+ httpd$/)]);
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(events.map((event) => event.step)).toEqual(['cleaning', 'copying', 'keeping', 'swapping', 'restarting']);
    expect(await page(container)).toBe('<h1>Versie 1</h1>\n');
    expect(await page(container, '/css/site.css')).toBe('body{}\n');
    // Owned by the image's student (uid/gid 1000), the web root too; no .git in the container.
    expect((await run(container, ['stat', '-c', '%u:%g', '/www', '/www/index.html', '/www/css'])).output).toBe('1000:1000\n1000:1000\n1000:1000\n');
    expect((await run(container, ['ls', '-a', '/www'])).output.split('\n')).not.toContain('.git');
    expect(await besideWebRoot(container)).toEqual(['www']);
    // Reported only, no restart: the page then comes from the removed folder.
    const reporting = await deployAndSettle(new ContainerDeployer({ docker: new DockerEngine(docker), heldOldRoot: 'report' }), { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } });
    expect(reporting).toMatchObject({ restarted: false, heldOldRoot: [expect.stringMatching(/ httpd$/)] });
    expect((await run(container, ['wget', '-qO-', 'http://127.0.0.1/'])).output).toMatch(/404/);
    expect((await run(container, ['cat', '/www/index.html'])).output).toBe('<h1>Versie 1</h1>\n');

    await host.pushCommit('site', { 'index.html': '<h1>Versie 2</h1>\n' });
    await clone('site');
    const second = await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } });
    expect(second.files).toBe(2);
    expect(await page(container)).toBe('<h1>Versie 2</h1>\n');
    expect(await besideWebRoot(container)).toEqual(['www']);
  });

  it('keeps the keep paths that exist (uploads written in the container survive a deploy)', async () => {
    await host.createRepository('keep', { 'index.html': 'met uploads\n', 'uploads/README': 'uit git\n' });
    const checkout = await clone('keep');
    const container = await makeSite('keep');
    expect((await run(container, ['sh', '-c', 'mkdir -p /www/uploads && echo foto > /www/uploads/foto.txt && echo geheim > /www/.env'])).exitCode).toBe(0);
    const deployer = new ContainerDeployer({ docker: new DockerEngine(docker) });
    const result = await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', keepPaths: ['uploads', '.env', 'wp-config.php'] } });
    expect(result.kept).toEqual(['uploads', '.env']);
    expect(await page(container)).toBe('met uploads\n');
    expect(await page(container, '/uploads/foto.txt')).toBe('foto\n');
    // The kept folder is the container's, not the repository's.
    expect((await run(container, ['ls', '/www/uploads'])).output).toBe('foto.txt\n');
    expect((await run(container, ['cat', '/www/.env'])).output).toBe('geheim\n');
    await expect(deployer.deploy({ containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', keepPaths: ['../etc'] } })).rejects.toMatchObject({ reason: 'bad-settings' });
  });

  it('runs the after-update command as the web user, and a failing one keeps the old site', async () => {
    await host.createRepository('after', { 'index.html': 'oud\n' });
    const checkout = await clone('after');
    const container = await makeSite('after');
    const deployer = new ContainerDeployer({ docker: new DockerEngine(docker) });
    const lines: string[] = [];
    const onProgress = (event: DeployProgress) => {
      if (event.step === 'after-update') lines.push(event.line);
    };
    await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', afterUpdate: 'echo gebouwd; id -u > wie.txt; pwd > waar.txt' }, onProgress });
    expect(lines).toEqual(['gebouwd']);
    expect(await page(container, '/wie.txt')).toBe('1000\n');
    expect(await page(container, '/waar.txt')).toMatch(/^\/www\.devplein-next-[0-9a-f]{8}\n$/);

    await host.pushCommit('after', { 'index.html': 'nieuw\n' });
    await clone('after');
    lines.length = 0;
    const error = await deployer
      .deploy({ containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', afterUpdate: 'echo bezig; echo kapot >&2; exit 3' }, onProgress })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeployError);
    // stdout and stderr are two pipes: Docker does not keep the order between them.
    expect(error).toMatchObject({ reason: 'after-update-failed' });
    expect([...(error as DeployError).outputLines].sort()).toEqual(['bezig', 'kapot']);
    expect([...lines].sort()).toEqual(['bezig', 'kapot']);
    expect(await page(container)).toBe('oud\n');
    expect(await besideWebRoot(container)).toEqual(['www']);

    // Over its time limit: stopped (nothing of it keeps running), the old site stays.
    const slow = new ContainerDeployer({ docker: new DockerEngine(docker), afterUpdateTimeoutMs: 1000 });
    await expect(slow.deploy({ containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', afterUpdate: 'echo begin; sleep 7777' } })).rejects.toMatchObject({
      reason: 'after-update-timeout',
      outputLines: ['begin'],
    });
    const ps = (await run(container, ['ps'])).output;
    expect(ps, ps).not.toContain('sleep 7777');
    expect(await page(container)).toBe('oud\n');
    expect(await besideWebRoot(container)).toEqual(['www']);
  });

  it('a deploy stopped between copy and swap leaves the old site; the next deploy cleans up', async () => {
    await host.createRepository('killed', { 'index.html': 'eerste\n' });
    const checkout = await clone('killed');
    const container = await makeSite('killed');
    await deployAndSettle(new ContainerDeployer({ docker: new DockerEngine(docker) }), { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } });
    await host.pushCommit('killed', { 'index.html': 'tweede\n' });
    await clone('killed');
    // Like an agent killed right before the swap: the deploy never goes on.
    let reached!: () => void;
    const atSwap = new Promise<void>((resolve) => (reached = resolve));
    const stuck = new ContainerDeployer({
      docker: new DockerEngine(docker),
      beforeSwap: () => {
        reached();
        return new Promise<void>(() => undefined);
      },
    });
    void stuck.deploy({ containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } });
    await atSwap;
    expect(await page(container)).toBe('eerste\n');
    const beside = await besideWebRoot(container);
    expect(beside).toHaveLength(2);
    expect(beside[1]).toMatch(/^www\.devplein-next-[0-9a-f]{8}$/);
    expect((await run(container, ['cat', `/${beside[1]}/index.html`])).output).toBe('tweede\n');

    const events: DeployProgress[] = [];
    await deployAndSettle(new ContainerDeployer({ docker: new DockerEngine(docker) }), { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' }, onProgress: (event) => events.push(event) });
    expect(events[0]).toEqual({ step: 'cleaning', removed: 1 });
    expect(await page(container)).toBe('tweede\n');
    expect(await besideWebRoot(container)).toEqual(['www']);
  });

  it('a deploy killed between the two renames: the next deploy puts the previous site back first', async () => {
    await host.createRepository('halfway', { 'index.html': 'een\n' });
    const checkout = await clone('halfway');
    const container = await makeSite('halfway');
    const deployer = new ContainerDeployer({ docker: new DockerEngine(docker) });
    await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } });
    expect((await run(container, ['sh', '-c', 'mkdir /www/uploads && echo bewaard > /www/uploads/a.txt && mv -T /www /www.devplein-prev-dead0001'])).exitCode).toBe(0);
    await host.pushCommit('halfway', { 'index.html': 'twee\n' });
    await clone('halfway');
    const result = await deployAndSettle(deployer, { containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www', keepPaths: ['uploads'] } });
    expect(result.kept).toEqual(['uploads']);
    expect(await page(container)).toBe('twee\n');
    expect(await page(container, '/uploads/a.txt')).toBe('bewaard\n');
    expect(await besideWebRoot(container)).toEqual(['www']);
  });

  it('refuses a container devplein does not manage', async () => {
    const checkout = join(state, 'checkouts', 'site');
    const container = await docker.createContainer({ name: `deploy-unmanaged-${suffix}`, Image: STATIC_IMAGE, HostConfig: { Init: true } });
    containers.push(container);
    await container.start();
    await expect(new ContainerDeployer({ docker: new DockerEngine(docker) }).deploy({ containerId: container.id, checkoutDir: checkout, settings: { webRoot: '/www' } })).rejects.toMatchObject({ reason: 'not-deployable' });
  });
});
