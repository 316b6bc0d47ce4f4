/*
 * Live container stats on the student's running card (issue 22), nothing faked: Chromium →
 * control plane (one agent watch per container) → gRPC/mTLS → host agent (one Docker stats
 * stream) → the real Docker engine. The card shows CPU and memory with sparklines, in Dutch,
 * and follows a container that starts to work without a reload.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { agentLinkEnv } from '../support/services/agent.ts';
import { startRealHosting, type RealHosting } from '../support/stacks/real-hosting.ts';
import { ensureWebImage, randomSuffix, testDocker } from '../support/services/docker.ts';
import { shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';

const SITE = 'dev.devplein.test';
const suffix = randomSuffix();
const siteName = `stats-${suffix}`;
const network = `devplein-e2e-stats-${suffix}`;
const shots = shotsDir();
const docker = testDocker();

let hosting: RealHosting;
let e2e: E2eApp;

beforeAll(async () => {
  const image = await ensureWebImage();
  hosting = await startRealHosting({ network });
  e2e = await startE2eApp({
    env: { SITE_DOMAIN: SITE, ...agentLinkEnv(hosting.agent.address, hosting.certs), AGENT_DEADLINE_MS: '5000' },
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    },
  });
  // An approved project of the student, its container made through the API.
  const studentId = await e2e.userIdOf('student@devplein.test');
  const imageId = Number((await e2e.database.knex('docker_images').where({ name: 'Statische site' }).first('id'))!.id);
  const [row] = await e2e.database
    .knex('projects')
    .insert({ name: siteName, domain: `${siteName}.${SITE}`, description: 'Statistieken bekijken', docker_image_id: imageId, validated: true, visible: false })
    .returning('id');
  const projectId = Number((row as { id: number }).id);
  await e2e.database.knex('project_user').insert({ project_id: projectId, user_id: studentId });
  const api = new HttpSession(e2e.url);
  await api.signIn('student@devplein.test');
  expect((await api.api('POST', '/api/user/dockers', { id: projectId })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await e2e?.stop();
  await hosting?.stop([siteName]);
});

const statsOf = (page: Page) => page.locator(`[data-testid="docker-card"][data-docker="${siteName}"] [data-testid="docker-stats"]`);

/** Keeps the container's CPU busy (a shell loop inside it) until the returned function stops it. */
async function busyLoop(): Promise<() => Promise<void>> {
  const exec = await docker.getContainer(siteName).exec({ Cmd: ['sh', '-c', 'echo $$ > /tmp/busy.pid; while :; do :; done'], AttachStdout: false, AttachStderr: false });
  await exec.start({ Detach: true });
  return async () => {
    const stop = await docker.getContainer(siteName).exec({ Cmd: ['sh', '-c', 'kill $(cat /tmp/busy.pid)'], AttachStdout: false, AttachStderr: false });
    await stop.start({ Detach: true });
  };
}

describe('live container stats on the running card', { timeout: 180_000 }, () => {
  it('shows CPU and memory with sparklines in Dutch and follows the container live', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/dockers`);
    const stats = statsOf(page);
    await stats.waitFor({ timeout: 20_000 });

    const cpu = stats.getByTestId('docker-stats-cpu');
    const memory = stats.getByTestId('docker-stats-memory');
    expect(await cpu.textContent()).toMatch(/^CPU \d+(,\d)? %$/);
    // The container's limit from the agent's defaults, as `docker stats` counts it.
    const limit = (await docker.getContainer(siteName).inspect()).HostConfig.Memory ?? 0;
    expect(limit).toBeGreaterThan(0);
    expect(await memory.textContent()).toMatch(new RegExp(`^Geheugen \\d+(,\\d)? MB van ${Math.round(limit / 1024 / 1024)} MB$`));
    // The sparklines are images with a text alternative.
    const cpuLine = stats.getByRole('img', { name: /^CPU de laatste 5 minuten: tussen .* %, nu .* %$/ });
    const memoryLine = stats.getByRole('img', { name: /^Geheugen de laatste 5 minuten: tussen .* MB en .* MB, nu .* MB$/ });
    expect(await cpuLine.count()).toBe(1);
    expect(await memoryLine.count()).toBe(1);
    expect(await stats.getByTestId('docker-stats-warning').count()).toBe(0);
    expect(await stats.getByTestId('docker-stats-oom').count()).toBe(0);

    // Live: a new sample arrives without a reload.
    const firstRead = await stats.getAttribute('data-read-at');
    await page.waitForFunction(
      ({ name, before }) => document.querySelector(`[data-docker="${name}"] [data-testid="docker-stats"]`)?.getAttribute('data-read-at') !== before,
      { name: siteName, before: firstRead },
      { timeout: 20_000 },
    );

    // The container starts working: the card's CPU follows (one busy loop: tens of percent).
    const stop = await busyLoop();
    try {
      await page.waitForFunction(
        (name) => {
          const text = document.querySelector(`[data-docker="${name}"] [data-testid="docker-stats-cpu"]`)?.textContent ?? '';
          const value = Number(text.replace(/[^\d,]/g, '').replace(',', '.'));
          return value >= 20;
        },
        siteName,
        { timeout: 30_000 },
      );
      // Wait for the history to hold a few points, so the screenshot shows a line.
      await page.waitForFunction((name) => Number(document.querySelector(`[data-docker="${name}"] [data-testid="docker-stats-cpu-line"]`)?.getAttribute('data-points')) >= 3, siteName, {
        timeout: 30_000,
      });
      await page.screenshot({ path: path.join(shots, 'dockers-stats.png'), fullPage: true });
      const phone = await e2e.signInAs('student@devplein.test', { width: 390, height: 844 });
      await phone.page.goto(`${e2e.url}/dockers`);
      await statsOf(phone.page).waitFor({ timeout: 20_000 });
      await phone.page.screenshot({ path: path.join(shots, 'dockers-stats-phone.png'), fullPage: true });
      await phone.context.close();
    } finally {
      await stop();
    }
    await context.close();
  });
});
