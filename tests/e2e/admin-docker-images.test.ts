import os from 'node:os';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TEST_TIMEOUT_MS, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The admin images page in Chromium: each option's 'Rechten (capabilities)' in the table, edited
 * with checkboxes and saved through PATCH /api/admin/dockers/images/{id}; the add form has the
 * same checkboxes; each option's git deploy settings (issue 23), edited in a card under the
 * table. Screenshots go to the system temp folder (DEVPLEIN_SHOTS_DIR to choose).
 */

const shots = process.env.DEVPLEIN_SHOTS_DIR ?? path.join(os.tmpdir(), 'devplein-shots');
let e2e: E2eApp;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

describe('Image options (/admin/dockers/images) in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows each option\'s capabilities and lets the admin change them with checkboxes', async () => {
    const { page } = await e2e.signInAs('admin@devplein.test', { width: 1280, height: 900 });
    await page.goto(`${e2e.url}/admin/dockers/images`);
    await page.getByRole('heading', { name: 'Image-opties', level: 1 }).waitFor();
    const row = (name: string) => page.getByTestId('docker-image-row').filter({ hasText: name });
    await row('Statische site').waitFor();
    const capabilitiesOf = async (name: string) => (await row(name).locator('.docker-capabilities').innerText()).replace(/\s*Wijzigen$/, '');
    expect(await capabilitiesOf('Statische site')).toBe('geen');
    expect(await capabilitiesOf('PHP 8.3 + Apache')).toMatch(/^CHOWN\s+FOWNER\s+KILL\s+SETGID\s+SETUID$/);
    const form = page.getByRole('group', { name: 'Rechten (capabilities)', exact: true });
    expect(await form.getByRole('checkbox').count()).toBe(11);

    await page.getByRole('button', { name: 'Rechten van Statische site wijzigen' }).click();
    const edit = page.getByRole('group', { name: 'Rechten (capabilities) van Statische site' });
    await edit.getByRole('checkbox', { name: /^NET_BIND_SERVICE/ }).check();
    await page.screenshot({ path: path.join(shots, 'admin-docker-images-capabilities.png'), fullPage: true });
    await page.getByRole('button', { name: 'Rechten opslaan' }).click();
    await page.getByText('De rechten van Statische site zijn opgeslagen.', { exact: false }).waitFor();
    await expect.poll(() => capabilitiesOf('Statische site')).toBe('NET_BIND_SERVICE');
    const stored = await e2e.database.knex('docker_images').where('name', 'Statische site').first<{ capabilities: string[] }>('capabilities');
    expect(stored.capabilities).toEqual(['NET_BIND_SERVICE']);
  });

  it('shows where git deploys put the code and lets the admin change it, with Dutch field errors for a system folder', async () => {
    for (const [size, name] of [[{ width: 1280, height: 900 }, 'desktop'], [{ width: 390, height: 844 }, 'phone']] as const) {
      const { page } = await e2e.signInAs('admin@devplein.test', size);
      await page.goto(`${e2e.url}/admin/dockers/images`);
      const row = (option: string) => page.getByTestId('docker-image-row').filter({ hasText: option });
      await row('Node.js 20').waitFor();
      const rootOf = async (option: string) => (await row(option).locator('.deploy-root').innerText()).replace(/\s*Wijzigen$/, '');
      expect(await rootOf('Statische site')).toBe('/www');
      expect(await rootOf('WordPress')).toBe('/var/www/html');
      expect(await rootOf('Node.js 20')).toMatch(/^(niet aangeboden|\/srv\/app)$/);

      await page.getByRole('button', { name: 'Git-deploy van Node.js 20 wijzigen' }).click();
      const editor = page.getByRole('form', { name: 'Git-deploy van Node.js 20' });
      await editor.getByLabel('Webroot in de container').fill('/etc');
      await editor.getByLabel('Bouwopdracht (optioneel)').fill('npm run build');
      // The second round (phone) starts from what the first one saved.
      await editor.getByLabel('Map met het bouwresultaat').fill('');
      await editor.getByRole('button', { name: 'Git-deploy opslaan' }).click();
      await editor.getByText('Geef een map in de container als absoluut pad', { exact: false }).waitFor();
      await editor.getByText('Geef bij een bouwopdracht ook de map met het resultaat', { exact: false }).waitFor();
      await page.screenshot({ path: path.join(shots, `admin-docker-images-deploy-errors-${name}.png`), fullPage: true });

      await editor.getByLabel('Webroot in de container').fill('/srv/app/');
      await editor.getByLabel('Map met het bouwresultaat').fill('dist');
      await editor.getByLabel('Bewaren bij bijwerken (één pad per regel)').fill('.env\nuploads');
      await editor.getByRole('button', { name: 'Git-deploy opslaan' }).click();
      await page.getByText('De git-deploy van Node.js 20 is opgeslagen.', { exact: false }).waitFor();
      await expect.poll(() => rootOf('Node.js 20')).toBe('/srv/app');
      await page.screenshot({ path: path.join(shots, `admin-docker-images-deploy-${name}.png`), fullPage: true });
      const stored = await e2e.database.knex('docker_images').where('name', 'Node.js 20').first('deploy_web_root', 'deploy_keep_paths', 'deploy_build_command', 'deploy_build_output');
      expect(stored).toEqual({ deploy_web_root: '/srv/app', deploy_keep_paths: ['.env', 'uploads'], deploy_build_command: 'npm run build', deploy_build_output: 'dist' });
      await page.context().close();
    }
  });
});
