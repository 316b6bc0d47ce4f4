import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import type { Page } from 'playwright-core';
import { routePaths, type RouteName } from '../../web/src/routePaths.ts';
import { agentLinkEnv, makeTestCerts } from '../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/**
 * Dutch everywhere (issue 22): every screen of the web app's route table, opened as every role,
 * shows no common English UI words and no HTTP paths in its visible text. English that the
 * specification itself prescribes (ENGLISH_THE_SPEC_WRITES) and user content (every text of the
 * seeded rows) are allowed. A new page or message in English fails this test. A fake agent runs
 * containers for a student's and a developer's project, so the dockers screens show cards and rows
 * with Docker's own status lines.
 */

/**
 * Common English words of UI texts and error messages (whole words, any case). Words that are
 * Dutch as well are left out ("back-up", "Log in met je schoolaccount", "is", "was", "of", "info", "week": "1 week geleden").
 */
const ENGLISH =
  /\b(the|and|with|your|you|this|that|not|for|from|please|click|error|errors|failed|failure|loading|submit|cancel|delete|save|saved|edit|add|remove|created|deleted|settings|not found|unknown|invalid|required|expected|received|undefined|null|NaN|network|request|response|forbidden|unauthorized|try again|something went wrong|sign in|sign out|log out|search|user|users|password|page|next|previous|close|upload|download|downloading|extracting|pulling|complete|waiting|already exists|warning|page crashed|timeout|refused|missing|empty|none|yes|less than|about an?|ago|seconds?|minutes?|hours?|days|weeks|months?|years?)\b/i;

/** An HTTP path of the API (or a method and a path): a message meant for a developer. */
const HTTP_PATH = /\/api\/|\b(GET|POST|PUT|PATCH|DELETE) \//;

/**
 * English the specification prescribes for the UI (product-spec.md quotes them), longest first:
 * they are cut out of the text before the check. Level statuses and Docker's container states
 * are the spec's own words as well.
 */
const ENGLISH_THE_SPEC_WRITES = [
  'not activated',
  'NO OWNER',
  'Online tools',
  'Developers',
  'Disable',
  'Create',
  'Locked',
  'Open',
  'Success',
  'locked',
  'success',
  'running',
  'exited',
  'paused',
  'restart',
  // The WireGuard app's own (English) button, quoted on the VPN page so a student finds it.
  'Import tunnel(s) from file',
];

/**
 * Docker's Status column of the admin dockers table (spec §2: "text containing Exited, Up or
 * Paused"): allowed on admin screens only; a student's card words it in Dutch.
 */
const DOCKER_STATUS =
  /\b(Up|Exited \(-?\d+\)|Restarting \(-?\d+\)) (Less than a second|About an? (minute|hour)|\d+ (seconds?|minutes?|hours?|days?|weeks?|months?|years?))( ago)?( \((Paused|healthy|unhealthy)\))?|\bCreated\b/g;

/** The roles of spec §1 by a seeded account of each. */
const ROLES = [
  { role: 'student', email: 'student@devplein.test' },
  { role: 'developer', email: 'ontwikkelaar@devplein.test' },
  { role: 'admin (developer)', email: 'admin@devplein.test' },
  { role: 'admin (teacher)', email: 'docent@devplein.test' },
  { role: 'not activated', email: 'nieuw@devplein.test' },
  { role: 'a visitor who is not signed in', email: null },
] as const;

/** Tables whose text is user content (names, titles, descriptions, domains): allowed in any language. */
const USER_CONTENT_TABLES = [
  'users',
  'groups',
  'teams',
  'level_categories',
  'level_contents',
  'courses',
  'course_texts',
  'course_files',
  'docker_images',
  'projects',
  'ssh_keys',
  'databases',
  'licenses',
  'introducees',
];

/** Every string of the seeded user content, longest first (so a long one is cut before a word inside it). */
async function userContent(knex: Knex): Promise<string[]> {
  const texts = new Set<string>();
  for (const table of USER_CONTENT_TABLES) {
    for (const row of await knex(table).select<Record<string, unknown>[]>('*')) {
      for (const value of Object.values(row)) {
        if (typeof value !== 'string' || value.length < 2 || value.length > 5_000) continue;
        texts.add(value.trim());
        // Markdown bodies render without their markup: allow each line and sentence on its own too.
        for (const part of value.split(/\n|(?<=[.!?])\s+/)) if (part.trim().length >= 2) texts.add(part.replace(/[#*_`>-]+\s*/g, '').trim());
      }
    }
  }
  return [...texts].filter((text) => text.length >= 2).sort((a, b) => b.length - a.length);
}

/** The English words and HTTP paths in a screen's visible text, after the allowed texts are cut out. */
function englishIn(text: string, allowed: readonly string[], adminScreen = false): string[] {
  let rest = adminScreen ? text.replace(DOCKER_STATUS, ' ') : text;
  for (const allow of allowed) rest = rest.split(allow).join(' ');
  const found: string[] = [];
  for (const line of rest.split('\n')) {
    const english = ENGLISH.exec(line);
    if (english !== null) found.push(`"${english[0]}" in: ${line.trim().slice(0, 160)}`);
    const httpPath = HTTP_PATH.exec(line);
    if (httpPath !== null) found.push(`HTTP path "${httpPath[0]}" in: ${line.trim().slice(0, 160)}`);
  }
  return found;
}

/** A concrete path for each route: parameters filled with rows the signed-in user may see. */
async function concretePaths(knex: Knex, email: string | null): Promise<Array<{ name: RouteName; path: string }>> {
  const user = await knex('users').where({ email: email ?? 'student@devplein.test' }).first<{ id: number; name_slug: string }>('id', 'name_slug');
  const level =
    (await knex('levels').where({ user_id: user.id }).whereNot({ status: 'locked' }).first<{ id: number } | undefined>('id')) ??
    (await knex('levels').first<{ id: number } | undefined>('id'));
  const content = await knex('level_contents').first<{ id: number } | undefined>('id');
  const category = await knex('level_categories').first<{ id: number } | undefined>('id');
  const params: Record<string, string> = {
    level: String(level?.id ?? 1),
    profile: `${user.id}/${user.name_slug}`,
    adminLevelContentEdit: String(content?.id ?? 1),
    adminLevelCategoryEdit: String(category?.id ?? 1),
  };
  return (Object.entries(routePaths) as Array<[RouteName, string]>).map(([name, pattern]) => ({
    name,
    path: name === 'profile' ? `/profile/${params.profile}` : pattern.replace(/:id\b/, params[name] ?? '1'),
  }));
}

/** Waits until the screen has settled: no request in flight and no "… laden…" text left. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page
    .waitForFunction(() => !/\bladen…|Bezig met laden/i.test(document.body.innerText), undefined, { timeout: 5_000 })
    .catch(() => undefined);
}

/** What a reader sees: the body's rendered text plus placeholders and button values. */
function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const extra = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[placeholder], textarea[placeholder]')]
      .filter((field) => field.offsetParent !== null)
      .map((field) => field.placeholder);
    const values = [...document.querySelectorAll<HTMLInputElement>('input[type=submit], input[type=button]')].map((button) => button.value);
    return [document.body.innerText, ...extra, ...values].join('\n');
  });
}

let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;
let allowed: string[];
const shots = shotsDir();

/** Creates the container of a seeded, approved project through the API, as its member. */
async function createContainer(email: string, project: string): Promise<void> {
  const row = await e2e.database.knex('projects').where({ name: project }).first<{ id: number }>('id');
  const { context, page } = await e2e.signInAs(email);
  const status = await page.evaluate(async (id) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
    const response = await fetch('/api/user/dockers', {
      method: 'POST',
      headers: { 'X-CSRF-TOKEN': token, 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    return response.status;
  }, row.id);
  await context.close();
  expect(status, `creating ${project}`).toBe(200);
}

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-dutch-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs });
  e2e = await startE2eApp({ env: { SITE_DOMAIN: 'dev.devplein.test', ...agentLinkEnv(agent.address, certs) } });
  await createContainer('student@devplein.test', 'sam-portfolio');
  await createContainer('ontwikkelaar@devplein.test', 'olga-api');
  allowed = [...ENGLISH_THE_SPEC_WRITES, ...(await userContent(e2e.database.knex))].sort((a, b) => b.length - a.length);
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

describe('Dutch everywhere: every screen as every role', { timeout: E2E_TEST_TIMEOUT_MS * 4 }, () => {
  it('the check finds planted English and an HTTP path (it can fail)', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await settle(page);
    await page.evaluate(() => {
      const planted = document.createElement('p');
      planted.textContent = 'Something went wrong. Please try again (PUT /api/user/dockers/7 failed).';
      document.body.append(planted);
    });
    const found = englishIn(await visibleText(page), allowed);
    expect(found.join('\n')).toMatch(/"Something went wrong"|"Please"/i);
    expect(found.join('\n')).toMatch(/HTTP path/);
    await context.close();
  });

  for (const { role, email } of ROLES) {
    it(`shows no English and no HTTP paths to ${role}`, async () => {
      const { context, page } =
        email === null
          ? await (async () => {
              const anonymous = await e2e.browser.newContext();
              return { context: anonymous, page: await anonymous.newPage() };
            })()
          : await e2e.signInAs(email, undefined, { waitForApp: false });
      await page.waitForLoadState('networkidle');
      const problems: string[] = [];
      for (const { name, path: route } of await concretePaths(e2e.database.knex, email)) {
        await page.goto(`${e2e.url}${route}`);
        await settle(page);
        for (const problem of englishIn(await visibleText(page), allowed, name.startsWith('admin'))) problems.push(`${role} ${route} (${name}, now ${new URL(page.url()).pathname}): ${problem}`);
        if (problems.length > 0 && !problems.some((line) => line.includes('shot:'))) {
          const file = path.join(shots, `dutch-everywhere-${email?.split('@')[0] ?? 'anonymous'}-${name}.png`);
          await page.screenshot({ path: file, fullPage: true });
          problems.push(`shot: ${file}`);
        }
      }
      await context.close();
      expect(problems).toEqual([]);
    });
  }
});
