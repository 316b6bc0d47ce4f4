/*
 * Push to deploy end to end (issue 23), nothing faked: Chromium → control plane → gRPC/mTLS → the
 * real host agent (git as its own user behind its firewall chain when root) → the test git host
 * (git daemon, sshd with git-shell), the real Docker engine and Caddy; live updates through the
 * real soketi.
 *
 * A student requests a project with a repository through the form, a teacher approves it, the
 * student presses Aanmaken: the site through Caddy is the repository's page. A push with a signed
 * webhook (as Gitea sends it) updates the site, and the card's commit changes without a reload. A
 * forced push of a broken tree keeps the old site. A private repository clones over SSH with the
 * project's deploy key, not without it. The form refuses a host outside the school's list and
 * file://, and so does the server.
 */
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ProjectDeployPanel } from '@devplein/contract/deploys';
import { ensureBusyboxImage } from '../../scripts/lib/busybox-image.ts';
import { agentLinkEnv } from '../support/services/agent.ts';
import { canSwitchUser } from '../support/fixtures/agent-user.ts';
import { ensureSystemUser } from '../support/fixtures/browser-user.ts';
import { visitSite, type TestCaddy } from '../support/services/caddy.ts';
import { randomSuffix, requireDockerEngine } from '../support/services/docker.ts';
import { shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { type GitHost, startGitHost } from '../support/services/git-host.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { waitFor } from '../support/clients/ports.ts';
import { startRealHosting, type RealHosting } from '../support/stacks/real-hosting.ts';

const SITE = 'dev.devplein.test';
const STATIC_IMAGE = 'devplein-test/static-deploy:1';
const GIT_USER = 'devplein-git';
const suffix = randomSuffix();
const network = `devplein-e2e-git-${suffix}`;
/** Container names are global on the engine: unique per run (letters and hyphens only). */
const openName = `gitsite-${suffix}`;
const privateName = `privesite-${suffix}`;
const shots = shotsDir();
const DESCRIPTION = 'Mijn portfolio, gebouwd in git en bij elke push automatisch bijgewerkt op devplein.';

let host: GitHost;
let hosting: RealHosting;
let caddy: TestCaddy;
let e2e: E2eApp;
let studentApi: HttpSession;
let adminApi: HttpSession;

beforeAll(async () => {
  requireDockerEngine();
  await ensureBusyboxImage(STATIC_IMAGE, ['/bin/httpd', '-f', '-p', '80', '-h', '/www']);
  const asRoot = canSwitchUser();
  if (asRoot) ensureSystemUser(GIT_USER);
  host = await startGitHost();
  hosting = await startRealHosting({ network, agentEnv: asRoot ? { AGENT_GIT_USER: GIT_USER } : {} });
  caddy = hosting.caddy;
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(hosting.agent.address, hosting.certs),
      GIT_ALLOWED_HOSTS: host.allowedHosts.join(','),
    },
    // 'Statische site' runs the local busybox image; a tree without index.html is broken (the
    // after-update command fails, so the old site stays).
    beforeStart: async ({ database }) => {
      await database
        .knex('docker_images')
        .where({ name: 'Statische site' })
        .update({ image: STATIC_IMAGE, ssh: false, deploy_web_root: '/www', deploy_after_update: 'test -f index.html' });
    },
  });
  studentApi = new HttpSession(e2e.url);
  await studentApi.signIn('student@devplein.test');
  adminApi = new HttpSession(e2e.url);
  await adminApi.signIn('admin@devplein.test');
}, 240_000);

afterAll(async () => {
  await e2e?.stop();
  await hosting?.stop([openName, privateName]);
  await host?.stop();
});

const card = (page: Page, name: string) => page.locator(`[data-testid="docker-card"][data-docker="${name}"]`);

/** The site's answer through the dev server's Caddy. */
const siteText = async (name: string): Promise<string> => (await visitSite(caddy.httpPort, `${name}.${SITE}`)).body;

async function waitForSite(name: string, text: string, description: string): Promise<number> {
  const started = performance.now();
  await waitFor(async () => (await siteText(name)).includes(text), { description, timeoutMs: 60_000 });
  return performance.now() - started;
}

/** Requests a project through the form, with this repository. */
async function requestThroughForm(page: Page, name: string, repository: string): Promise<void> {
  await page.goto(`${e2e.url}/dockers/create`);
  const form = page.getByTestId('docker-request-form');
  await form.getByLabel('Image').locator('option', { hasText: 'Statische site' }).waitFor({ state: 'attached' });
  await form.getByLabel('Naam').pressSequentially(name);
  await form.getByLabel('Image').selectOption({ label: 'Statische site' });
  await form.getByLabel('Beschrijving').fill(DESCRIPTION);
  await form.getByLabel('Git-repository (optioneel)').fill(repository);
  await expect.poll(() => form.getByRole('button', { name: 'Aanvragen' }).isEnabled(), { timeout: 15_000 }).toBe(true);
  await form.getByRole('button', { name: 'Aanvragen' }).click();
  await page.waitForURL(`${e2e.url}/dockers`);
}

async function approve(admin: HttpSession, name: string): Promise<number> {
  const row = await e2e.database.knex('projects').where({ name }).first<{ id: number }>('id');
  expect(row).toBeDefined();
  const id = Number(row!.id);
  expect((await admin.json('PUT', `/api/admin/projects/${id}`, {})).status).toBe(200);
  return id;
}

/** A push event as Gitea sends it, signed with the project's webhook secret. */
async function giteaPush(panel: ProjectDeployPanel, after: string, options: { forced?: boolean } = {}): Promise<Response> {
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    before: '0'.repeat(40),
    after,
    forced: options.forced ?? false,
    repository: { default_branch: 'main', full_name: 'student/site' },
    head_commit: { id: after, message: 'Nieuwe versie\n', timestamp: new Date().toISOString(), author: { name: 'Student Test', email: 'student@school.test' } },
  });
  const signature = createHmac('sha256', panel.webhook.secret).update(body).digest('hex');
  return fetch(panel.webhook.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gitea-event': 'push', 'x-gitea-signature': signature },
    body,
  });
}

describe('push to deploy', { timeout: 240_000 }, () => {
  it('a repository becomes the site on Aanmaken; a signed push updates it and the card live; a broken forced push keeps the old site', async () => {
    const first = await host.createRepository('portfolio', { 'index.html': '<h1>Welkom op mijn portfolio</h1>\n' }, { message: 'Eerste versie' });
    const { page } = await e2e.signInAs('student@devplein.test');

    await requestThroughForm(page, openName, host.daemonUrl('portfolio'));
    const projectId = await approve(adminApi, openName);
    await card(page, openName).getByRole('button', { name: 'Aanmaken' }).click();

    // The create deploys the repository's default branch: the site is the repository's page.
    await waitForSite(openName, 'Welkom op mijn portfolio', 'the first deploy through Caddy');
    const own = card(page, openName);
    await own.getByTestId('deploy-current-commit').getByText(first.slice(0, 7)).waitFor({ timeout: 30_000 });
    await expect.poll(() => own.getByTestId('deploy-status').getAttribute('data-status'), { timeout: 30_000 }).toBe('deployed');

    // The panel has the webhook; a push signed like Gitea's deploys the new commit.
    const panel = await studentApi.json<ProjectDeployPanel>('GET', `/api/user/dockers/${projectId}/deploys`);
    expect(panel.status).toBe(200);
    const second = await host.pushCommit('portfolio', { 'index.html': '<h1>Nu met projecten</h1>\n' }, { message: 'Projecten toegevoegd' });
    const pushed = await giteaPush(panel.body, second);
    expect(pushed.status).toBe(202);
    const pushToSiteMs = await waitForSite(openName, 'Nu met projecten', 'the pushed commit through Caddy');
    // Without a reload of the dockers page: the card's commit changes through the realtime event.
    await own.getByTestId('deploy-current-commit').getByText(second.slice(0, 7)).waitFor({ timeout: 30_000 });
    console.log(`[git-deploy e2e] signed push → new text through Caddy: ${Math.round(pushToSiteMs)} ms`);

    // The card with commit, log and the webhook details: desktop and phone.
    await own.getByRole('button', { name: /Git-deploy/ }).click();
    await own.getByTestId('webhook-url').waitFor();
    // A full-page picture from the top (scrolled, the sticky header lands mid-page).
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, 'git-deploy-card-desktop.png'), fullPage: true });
    const phone = await e2e.signInAs('student@devplein.test', { width: 390, height: 844 });
    try {
      await phone.page.goto(`${e2e.url}/dockers`);
      const phoneCard = card(phone.page, openName);
      await phoneCard.getByTestId('deploy-current-commit').getByText(second.slice(0, 7)).waitFor();
      await phoneCard.getByRole('button', { name: /Git-deploy/ }).click();
      await phoneCard.getByTestId('webhook-url').waitFor();
      await phone.page.evaluate(() => window.scrollTo(0, 0));
      await phone.page.screenshot({ path: path.join(shots, 'git-deploy-card-phone.png'), fullPage: true });
    } finally {
      await phone.context.close();
    }

    // A forced push of a broken tree (no index.html): the deploy fails, the old site stays.
    const broken = await host.forcePushTree('portfolio', { 'README.md': 'kapot\n' }, { message: 'Alles weg' });
    expect((await giteaPush(panel.body, broken, { forced: true })).status).toBe(202);
    await expect.poll(() => own.getByTestId('deploy-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('failed');
    expect(await siteText(openName)).toContain('Nu met projecten');
    await own.getByTestId('deploy-failure').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, 'git-deploy-card-failed.png'), fullPage: true });

    // A bad signature: 401, and no deploy is queued.
    const before = await e2e.database.knex('project_deploys').where({ project_id: projectId }).count<{ count: string }[]>({ count: '*' });
    const forged = await giteaPush({ ...panel.body, webhook: { ...panel.body.webhook, secret: 'niet-het-geheim' } }, second);
    expect(forged.status).toBe(401);
    const after = await e2e.database.knex('project_deploys').where({ project_id: projectId }).count<{ count: string }[]>({ count: '*' });
    expect(after[0]?.count).toBe(before[0]?.count);
  });

  it('clones a private repository over SSH with the project’s deploy key, and not without it', async () => {
    const sshUrl = host.sshUrl('prive');
    if (!sshUrl) throw new Error('the test git host has no sshd (openssh-server is one of npm test’s system packages)');
    const commit = await host.createRepository('prive', { 'index.html': '<h1>Alleen met de sleutel</h1>\n' }, { message: 'Geheim' });
    const { page } = await e2e.signInAs('student@devplein.test');

    await requestThroughForm(page, privateName, sshUrl);
    const projectId = await approve(adminApi, privateName);
    // The deploy key: shown on the card with the instruction; chosen as the way to sign in.
    const settings = await studentApi.json<ProjectDeployPanel>('PUT', `/api/user/dockers/${projectId}/deploy-settings`, { branch: null, auth: 'deploy-key' });
    expect(settings.status).toBe(200);
    await page.reload();
    await card(page, privateName).getByRole('button', { name: 'Aanmaken' }).click();

    // Without the key at the git server the first deploy fails, and there is no site from git.
    const own = card(page, privateName);
    await expect.poll(() => own.getByTestId('deploy-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('failed');
    expect(await siteText(privateName)).not.toContain('Alleen met de sleutel');

    await own.getByRole('button', { name: /Git-deploy/ }).click();
    // Opening the panel makes no key (issue 35): the student asks for it.
    await own.getByRole('button', { name: 'Deploy key maken' }).click();
    await own.getByTestId('deploy-key-instruction').getByText('Voeg deze sleutel toe als deploy key met alleen-lezen rechten').waitFor();
    const publicKey = (await own.getByTestId('deploy-key').textContent())?.trim() ?? '';
    expect(publicKey).toMatch(/^ssh-ed25519 \S+/);
    await host.authorizeKey(publicKey);

    // Bijwerken with the key at the git server: the private repository is the site.
    await own.getByRole('button', { name: 'Bijwerken' }).click();
    await waitForSite(privateName, 'Alleen met de sleutel', 'the private repository through Caddy');
    await own.getByTestId('deploy-current-commit').getByText(commit.slice(0, 7)).waitFor({ timeout: 30_000 });
  });

  it('refuses a host outside the school’s list and file:// in the form and on the server', async () => {
    const { page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/dockers/create`);
    const form = page.getByTestId('docker-request-form');
    const repository = form.getByLabel('Git-repository (optioneel)');
    await repository.fill('https://github.com/iemand/site.git');
    await repository.blur();
    await form.getByText(/github\.com/).first().waitFor();
    await page.screenshot({ path: path.join(shots, 'git-deploy-form-refused.png'), fullPage: true });
    await repository.fill('file:///etc/passwd');
    await repository.blur();
    await form.getByText(/file:\/\//).first().waitFor();

    for (const repro of ['https://github.com/iemand/site.git', 'file:///etc/passwd']) {
      const answer = await studentApi.json<{ errors: Record<string, string[]> }>('POST', '/api/user/project', {
        name: `geweigerd-${suffix}`,
        domain: `geweigerd-${suffix}.${SITE}`,
        docker_id: 5,
        description: DESCRIPTION,
        visible: '1',
        users: [],
        repro,
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.repro?.length).toBe(1);
    }
  });
});
