import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createSecretBox, deriveDevelopmentKey } from '../../control-plane/src/crypto/secret-box.ts';
import { makeTestCerts, agentLinkEnv } from '../support/services/agent.ts';
import { TEST_SESSION_SECRET } from '../support/services/control-plane.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * Issue 35 in Chromium (fake agent): the dockers card of a project whose stored token was dropped
 * ('Vul het token opnieuw in') and whose webhook secret was renewed because a member left (the
 * banner), the Git-deploy panel naming who stored a token, and the approval screen showing that a
 * request deploys with a stored token. Desktop and 390 px; the pictures go to the shots folder.
 */

const STUDENT = 'student@devplein.test';
const ADMIN = 'admin@devplein.test';
const SITE = 'dev.devplein.test';
const shots = shotsDir();
let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;

async function insertProject(knex: E2eApp['database']['knex'], name: string, validated: boolean | null): Promise<number> {
  const image = await knex('docker_images').where({ name: 'Statische site' }).first<{ id: number }>('id');
  const student = await knex('users').where({ email: STUDENT }).first<{ id: number }>('id');
  const [row] = await knex('projects')
    .insert({
      name,
      domain: `${name}.${SITE}`,
      description: 'Mijn portfolio met projecten, bijgewerkt vanuit git bij elke push.',
      visible: false,
      docker_image_id: image.id,
      validated,
      repro: `https://git.devplein.test/sam/${name}.git`,
      deploy_auth: 'token',
    })
    .returning<{ id: number }[]>('id');
  await knex('project_user').insert({ project_id: row?.id, user_id: student.id, position: 0 });
  return Number(row?.id);
}

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-cred-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs, siteDomain: SITE });
  e2e = await startE2eApp({
    env: { SITE_DOMAIN: SITE, ...agentLinkEnv(agent.address, certs), THUMBNAIL_CRON: 'off' },
    beforeStart: async ({ database }) => {
      const { knex } = database;
      const student = await knex('users').where({ email: STUDENT }).first<{ id: number }>('id');
      const sealed = createSecretBox(deriveDevelopmentKey(TEST_SESSION_SECRET)).seal('glpat-geheim-1234567890');
      // The token was dropped (the repository changed) and a member left: both notices on the card.
      const dropped = await insertProject(knex, 'token-weg', true);
      await knex('projects').where({ id: dropped }).update({ webhook_secret_notice: 'member-left', webhook_secret_notice_since: new Date(Date.now() - 12 * 60_000) });
      // A token Sam stored, on an approved project and on one waiting for approval.
      for (const [name, validated] of [['token-bewaard', true], ['token-wacht', null]] as const) {
        const id = await insertProject(knex, name, validated);
        await knex('project_git_tokens').insert({ project_id: id, user_id: student.id, address: `https://git.devplein.test/sam/${name}`, token_sealed: sealed, created_at: new Date('2026-11-20T10:00:00Z') });
        agent.addManaged({ name, projectId: id, domain: `${name}.${SITE}` });
      }
      agent.addManaged({ name: 'token-weg', projectId: dropped, domain: `token-weg.${SITE}` });
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const card = (page: Page, name: string) => page.locator(`[data-testid="docker-card"][data-docker="${name}"]`);

describe('stored git credentials in Chromium (issue 35)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`the card asks for the token again and warns about the renewed webhook secret; the panel names who stored a token (${label})`, async () => {
      const { context, page } = await e2e.signInAs(STUDENT, viewport);
      try {
        await page.goto(`${e2e.url}/dockers`);
        const dropped = card(page, 'token-weg');
        await dropped.getByTestId('deploy-token-missing').waitFor();
        expect(await dropped.getByTestId('deploy-token-missing').textContent()).toMatch(/^Vul het token opnieuw in\./);
        expect(await dropped.getByTestId('deploy-webhook-notice').textContent()).toContain('Iemand verliet het project (12 minuten geleden)');
        // A full-page picture from the top (scrolled, the sticky header lands on the card).
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(shots, `git-credentials-card-${label}.png`), fullPage: true });

        const kept = card(page, 'token-bewaard');
        expect(await kept.getByTestId('deploy-token-missing').count()).toBe(0);
        await kept.getByRole('button', { name: /Git-deploy/ }).click();
        await kept.getByTestId('token-hint').waitFor();
        expect(await kept.getByTestId('token-hint').textContent()).toBe('Opgeslagen door Sam Student op 20 november 2026, alleen voor dit repository-adres. Vul alleen iets in om het te vervangen.');
        await kept.getByRole('form', { name: 'Instellingen voor bijwerken' }).screenshot({ path: path.join(shots, `git-credentials-token-hint-${label}.png`) });
      } finally {
        await context.close();
      }
    });

    it(`the approval screen says the request deploys with a stored token, and whose (${label})`, async () => {
      const { context, page } = await e2e.signInAs(ADMIN, viewport);
      try {
        await page.goto(`${e2e.url}/admin/dockers/open`);
        const request = page.locator('[data-testid="project-request"][data-project="token-wacht"]');
        await request.getByTestId('project-git-token').waitFor();
        expect(await request.getByTestId('project-git-token').textContent()).toBe('Deployt met een opgeslagen token van Sam Student (alleen voor dit adres).');
        await request.screenshot({ path: path.join(shots, `git-credentials-approval-${label}.png`) });
      } finally {
        await context.close();
      }
    });
  }
});
