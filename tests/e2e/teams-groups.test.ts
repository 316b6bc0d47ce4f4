import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

const memberNames = async (page: Page): Promise<string[]> => page.getByTestId('member-list').locator('.member-name').allInnerTexts();

async function teamMemberIds(name: string): Promise<number[]> {
  return e2e.database.knex('team_user').join('teams', 'teams.id', 'team_user.team_id').where('teams.name', name).orderBy('user_id').pluck('user_id');
}

describe('teams and groups pages, in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('adds a team member through the search box and removes them with the remove icon', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/users/teams`);
    await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await page.getByRole('group', { name: 'Teams' }).getByRole('button', { name: /Webteam/ }).click();
    const members = page.getByTestId('team-members');
    await members.getByRole('heading', { name: 'Webteam' }).waitFor();
    await members.getByText('Lars de Graaf').waitFor();
    expect(await memberNames(page)).toEqual(['Anna Admin', 'Emma Smits', 'Lars de Graaf', 'Olga Ontwikkelaar']);

    const search = members.getByPlaceholder('zoek gebruikers');
    await search.fill('hid');
    const hit = members.getByTestId('user-search-hit').filter({ hasText: 'Hidde Koster' });
    await hit.waitFor();
    // Existing members show up but cannot be picked again (picking would toggle them out).
    await search.fill('Emma');
    await members.getByTestId('user-search-hit').filter({ hasText: 'Emma Smits' }).filter({ hasText: 'al lid' }).waitFor();
    expect(await members.getByTestId('user-search-hit').filter({ hasText: 'Emma Smits' }).isDisabled()).toBe(true);
    await search.fill('hidde');
    await page.screenshot({ path: path.join(shots, 'teams-search.png'), fullPage: true });
    await members.getByTestId('user-search-hit').filter({ hasText: 'Hidde Koster' }).click();
    await page.getByText('Hidde Koster is toegevoegd aan Webteam.').waitFor();
    await members.locator('.member-name', { hasText: 'Hidde Koster' }).waitFor();
    expect(await search.inputValue()).toBe('');
    const hidde = (await e2e.database.knex('users').where({ name: 'Hidde Koster' }).first<{ id: number }>('id')).id;
    expect(await teamMemberIds('Webteam')).toContain(hidde);
    await page.getByRole('group', { name: 'Teams' }).getByRole('button', { name: /Webteam/ }).getByText('5').waitFor();
    await page.screenshot({ path: path.join(shots, 'teams-added.png'), fullPage: true });

    await members.getByRole('button', { name: 'Hidde Koster uit Webteam verwijderen' }).click();
    await page.getByText('Hidde Koster is uit Webteam gehaald.').waitFor();
    expect(await memberNames(page)).not.toContain('Hidde Koster');
    expect(await teamMemberIds('Webteam')).not.toContain(hidde);
    expect(await e2e.database.knex('audit_log').whereIn('action', ['team.add-member', 'team.remove-member']).orderBy('id').pluck('action')).toEqual([
      'team.add-member',
      'team.remove-member',
    ]);
    // The chosen team survives a reload (?team= in the address).
    await page.reload();
    await page.getByTestId('team-members').getByRole('heading', { name: 'Webteam' }).waitFor();
    await context.close();
  });

  it('creates cohort SD24 and adds a student to it, moving her out of SD23', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    await page.goto(`${e2e.url}/admin/groups`);
    await page.getByRole('heading', { name: 'Groepen', level: 1 }).waitFor();
    const groupButtons = page.getByRole('group', { name: 'Groepen' }).getByRole('button');
    await page.getByRole('button', { name: /SD23/ }).waitFor();
    await page.getByLabel('Zoek op klas').fill('sd2');
    await expect.poll(async () => (await groupButtons.allInnerTexts()).map((text) => text.split('\n')[0]?.trim())).toEqual(['SD20', 'SD21', 'SD22', 'SD23']);
    await page.getByLabel('Zoek op klas').fill('22');
    await expect.poll(async () => groupButtons.count()).toBe(1);
    await page.getByLabel('Zoek op klas').fill('');

    // A bad cohort is refused with the server's message.
    const cohortField = page.getByRole('textbox', { name: 'Nieuwe groep' });
    await cohortField.fill('SD 24');
    await page.getByRole('button', { name: 'Groep maken' }).click();
    await page.getByText(/Een klas heeft 2 tot 20 letters, cijfers of streepjes/).waitFor();

    await cohortField.fill('SD24');
    await page.getByRole('button', { name: 'Groep maken' }).click();
    await page.getByText('Groep SD24 is gemaakt.').waitFor();
    const members = page.getByTestId('group-members');
    await members.getByRole('heading', { name: 'SD24' }).waitFor();
    await members.getByText(/Deze klas heeft nog geen studenten/).waitFor();
    expect(await cohortField.inputValue()).toBe('');

    // The same cohort again: refused.
    await cohortField.fill('sd24');
    await page.getByRole('button', { name: 'Groep maken' }).click();
    await page.getByText('Deze klas bestaat al.').waitFor();
    await cohortField.fill('');

    await members.getByPlaceholder('zoek gebruikers').fill('Sam');
    const hit = members.getByTestId('user-search-hit').filter({ hasText: 'Sam Student' });
    await hit.filter({ hasText: 'SD23' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'groups-search.png'), fullPage: true });
    await hit.click();
    await page.getByText('Sam Student zit nu in SD24 (was SD23).').waitFor();
    expect(await memberNames(page)).toEqual(['Sam Student']);
    const sam = await e2e.database.knex('users').join('groups', 'groups.id', 'users.group_id').where('users.email', 'student@devplein.test').first<{ cohort: string }>('groups.cohort');
    expect(sam.cohort).toBe('SD24');
    await page.screenshot({ path: path.join(shots, 'groups-sd24.png'), fullPage: true });

    await context.close();

    // On a phone the page still reads top to bottom; the chosen group is in the address.
    const sd24 = (await e2e.database.knex('groups').where({ cohort: 'SD24' }).first<{ id: number }>('id')).id;
    const phone = await e2e.signInAs('docent@devplein.test', { width: 390, height: 844 });
    await phone.page.goto(`${e2e.url}/admin/groups?group=${sd24}`);
    await phone.page.getByTestId('group-members').getByText('Sam Student').waitFor();
    await phone.page.screenshot({ path: path.join(shots, 'groups-phone.png'), fullPage: true });
    await phone.context.close();
  });

  it('shows students no teams or groups', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/admin/groups`);
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('heading', { name: 'Groepen', level: 1 }).count()).toBe(0);
    expect(await page.getByPlaceholder('zoek gebruikers').count()).toBe(0);
    await context.close();
  });
});
