/*
 * A project that is no longer approved cannot run, end to end (issue 15): Chromium → control
 * plane → gRPC/mTLS → the real host agent → the real Docker engine and Caddy. A teacher rejects a
 * running project: the container stops (and stays, with its files), Caddy no longer routes its
 * domain, the student's open dockers page says 'Afgekeurd' and offers no start, and a start
 * through the API is 403 in Dutch. Approved again, the page shows the stopped container and
 * Starten brings the site back.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLinkEnv } from '../support/services/agent.ts';
import { visitSite } from '../support/services/caddy.ts';
import { ensureWebImage, randomSuffix, testDocker } from '../support/services/docker.ts';
import { shotsDir, startE2eApp, userIdOf, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { waitFor } from '../support/clients/ports.ts';
import { startRealHosting, type RealHosting } from '../support/stacks/real-hosting.ts';

const SITE = 'dev.devplein.test';
const suffix = randomSuffix();
const siteName = `toegang-${suffix}`;
const domain = `${siteName}.${SITE}`;
const shots = shotsDir();
const docker = testDocker();

let hosting: RealHosting;
let e2e: E2eApp;
let projectId: number;

beforeAll(async () => {
  const image = await ensureWebImage();
  hosting = await startRealHosting({ network: `devplein-e2e-${suffix}` });
  e2e = await startE2eApp({
    env: { SITE_DOMAIN: SITE, ...agentLinkEnv(hosting.agent.address, hosting.certs), AGENT_DEADLINE_MS: '3000' },
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
      const imageId = (await database.knex('docker_images').where({ name: 'Statische site' }).first<{ id: number }>('id')).id;
      const [row] = await database
        .knex('projects')
        .insert({ name: siteName, domain, description: 'Een project dat een docent later afkeurt, voor de toegangstest.', visible: true, docker_image_id: imageId, validated: true })
        .returning<{ id: number }[]>('id');
      projectId = Number(row?.id);
      await database.knex('project_user').insert({ project_id: projectId, user_id: await userIdOf(database.knex, 'student@devplein.test'), position: 0 });
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
  await hosting?.stop([siteName]);
});

async function dockerState(name: string): Promise<string | undefined> {
  const [info] = await docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
  return info?.State;
}

describe('a project a teacher rejects', { timeout: 180_000 }, () => {
  it('stops running and leaves the proxy, keeps its container, cannot start until approved again', async () => {
    const studentApi = new HttpSession(e2e.url);
    await studentApi.signIn('student@devplein.test');
    const teacherApi = new HttpSession(e2e.url);
    await teacherApi.signIn('docent@devplein.test');
    expect((await studentApi.json('POST', '/api/user/dockers', { id: projectId })).status).toBe(200);
    await waitFor(async () => (await visitSite(hosting.caddy.httpPort, domain)).status === 200, { description: `Caddy routing ${domain}`, timeoutMs: 15_000 });

    const student = await e2e.signInAs('student@devplein.test');
    const page = student.page;
    await page.goto(`${e2e.url}/dockers`);
    const card = page.locator(`[data-testid="docker-card"][data-docker="${siteName}"]`);
    await page.locator(`[data-testid="docker-card"][data-docker="${siteName}"][data-state="running"]`).waitFor({ timeout: 20_000 });

    expect(await teacherApi.json('PUT', `/api/admin/projects/${projectId}`, {})).toEqual({ status: 200, body: { validated: false } });
    expect(await dockerState(siteName), 'stopped, not removed').toBe('exited');
    await waitFor(async () => (await visitSite(hosting.caddy.httpPort, domain)).status === 404, { description: 'Caddy to stop routing the rejected site', timeoutMs: 15_000 });
    // The open page follows: 'Afgekeurd', and the container's own 'exited' event does not undo it.
    await page.locator(`[data-testid="docker-card"][data-docker="${siteName}"][data-state="Afgekeurd"]`).waitFor({ timeout: 20_000 });
    const listed = await studentApi.json<Array<{ Names: string[]; State: string }>>('GET', '/api/user/dockers');
    expect(listed.body.find((each) => each.Names[0] === `/${siteName}`)?.State).toBe('Afgekeurd');
    expect(await card.getAttribute('data-state')).toBe('Afgekeurd');
    expect(await card.getByRole('button', { name: 'Starten' }).count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'dockers-rejected.png'), fullPage: true });

    const start = await studentApi.json<{ message: string }>('PUT', `/api/user/dockers/${projectId}?action=start`);
    expect(start).toEqual({ status: 403, body: { message: 'Dit project is afgekeurd: de container kan niet starten. Vraag een docent het project opnieuw goed te keuren.' } });
    expect((await teacherApi.json('PUT', `/api/admin/dockers/${siteName}?action=start`)).status).toBe(403);
    expect(await dockerState(siteName)).toBe('exited');
    expect((await visitSite(hosting.caddy.httpPort, domain)).status).toBe(404);

    // Approved again: the page shows the stopped container, and Starten brings the site back.
    expect((await teacherApi.json('PUT', `/api/admin/projects/${projectId}`, {})).body).toEqual({ validated: true });
    await page.locator(`[data-testid="docker-card"][data-docker="${siteName}"][data-state="exited"]`).waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: 'Starten' }).click();
    await page.locator(`[data-testid="docker-card"][data-docker="${siteName}"][data-state="running"]`).waitFor({ timeout: 20_000 });
    await waitFor(async () => (await visitSite(hosting.caddy.httpPort, domain)).status === 200, { description: 'the site to be served again', timeoutMs: 15_000 });
    await student.context.close();
  });
});
