/**
 * `npm run admin` (devplein admin): the first admin without SQL, run as the sysadmin runs it, a
 * child process against a throwaway PostgreSQL database.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli, type AdminCliRun } from '../../support/clients/admin-cli.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';

let database: TestDatabase;

/** `npm run admin -- …` against the test database (or `databaseUrl`). */
function admin(args: string[], databaseUrl = database.url, extraEnv: Record<string, string> = {}): Promise<AdminCliRun> {
  return runAdminCli(args, { DATABASE_URL: databaseUrl, ...extraEnv });
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.destroy();
});

describe('npm run admin', () => {
  it('creates an activated admin; a second run says nothing changed; list shows them', async () => {
    const created = await admin(['create', '--email', 'Beheerder@School.nl', '--name', 'Bea Beheer']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^Beheerder aangemaakt: Bea Beheer <beheerder@school\.nl> \(#\d+\)/);
    const row = await database.knex('users').where({ email: 'beheerder@school.nl' }).first();
    expect(row).toMatchObject({ name: 'Bea Beheer', admin: true, developer: false, disabled_at: null, oidc_subject: null });
    expect(row.email_verified_at).not.toBeNull();
    const audit = await database.knex('audit_log').where({ action: 'user.admin', subject_id: String(row.id) });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: null, before: null, after: { admin: true, reason: 'cli' } });

    const again = await admin(['create', '--email', 'beheerder@school.nl']);
    expect(again).toMatchObject({ code: 0, stdout: 'Niets veranderd: beheerder@school.nl is al beheerder.\n', stderr: '' });
    expect(await database.knex('audit_log').where({ action: 'user.admin' })).toHaveLength(1);

    const list = await admin(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toBe(`Bea Beheer <beheerder@school.nl> (#${row.id})\n`);
  });

  it('promotes an existing, disabled, not activated account to an activated admin, keeping its name', async () => {
    const [{ id }] = await database
      .knex('users')
      .insert({ name: 'Piet Docent', name_slug: 'piet-docent', email: 'piet@school.nl', admin: false, developer: true, disabled_at: new Date() })
      .returning('id');
    const promoted = await admin(['create', '--email', 'piet@school.nl', '--name', 'Ander']);
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toContain(`Beheerder gemaakt: Piet Docent <piet@school.nl> (#${id}) is nu een geactiveerde beheerder.`);
    const row = await database.knex('users').where({ id }).first();
    expect(row).toMatchObject({ name: 'Piet Docent', admin: true, developer: true, disabled_at: null });
    expect(row.email_verified_at).not.toBeNull();
    const [audit] = await database.knex('audit_log').where({ action: 'user.admin', subject_id: String(id) });
    expect(audit).toMatchObject({ actor_id: null, before: { admin: false, email_verified_at: null }, after: { admin: true, disabled_at: null, reason: 'cli' } });
    // Enabled again: the running control plane's retry job gives back what the disable took on
    // the dev servers (databases, VPN peer, SSH keys), as the web's Activeer does (same reason).
    expect(await database.knex('pending_host_access').where({ user_id: id }).select('reason')).toEqual([{ reason: 'user.verify' }]);
    expect(promoted.stdout).toContain('De toegang tot de dev-servers (databases, VPN, SSH-sleutels) komt terug zodra de control plane draait');
  });

  it('demotes an admin with remove, and refuses to remove the last active one', async () => {
    const knex = database.knex;
    // One active admin left: ours.
    await knex('users').where({ admin: true }).update({ admin: false });
    const [{ id: lastId }] = await knex('users')
      .insert({ name: 'Laatste Beheer', name_slug: 'laatste-beheer', email: 'laatste@school.nl', admin: true, developer: false, email_verified_at: new Date() })
      .returning('id');
    const refused = await admin(['remove', '--email', 'laatste@school.nl']);
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(refused.stderr).toBe('Niet gedaan: laatste@school.nl is de laatste actieve beheerder. Maak eerst een andere beheerder aan (devplein admin create).\n');
    expect(await knex('users').where({ id: lastId }).first('admin')).toEqual({ admin: true });

    const [{ id: otherId }] = await knex('users')
      .insert({ name: 'Tweede Beheer', name_slug: 'tweede-beheer', email: 'tweede@school.nl', admin: true, developer: true, email_verified_at: new Date() })
      .returning('id');
    const removed = await admin(['remove', '--email', 'Tweede@School.nl']);
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(removed.stdout).toBe(`Geen beheerder meer: Tweede Beheer <tweede@school.nl> (#${otherId}). Het account zelf blijft bestaan.\n`);
    expect(await knex('users').where({ id: otherId }).first('admin', 'developer', 'disabled_at')).toEqual({ admin: false, developer: true, disabled_at: null });
    const [audit] = await knex('audit_log').where({ action: 'user.admin', subject_id: String(otherId) });
    expect(audit).toMatchObject({ actor_id: null, before: { admin: true }, after: { admin: false, reason: 'cli' } });

    const again = await admin(['remove', '--email', 'tweede@school.nl']);
    expect(again).toMatchObject({ code: 0, stdout: 'Niets veranderd: tweede@school.nl is geen beheerder.\n', stderr: '' });
    const unknown = await admin(['remove', '--email', 'niemand@school.nl']);
    expect(unknown).toMatchObject({ code: 3, stdout: '', stderr: 'Niet gedaan: er is geen account met het e-mailadres niemand@school.nl.\n' });
  });

  it('refuses a bad address and bad arguments with exit code 2, changing nothing', async () => {
    const before = await database.knex('users').count({ count: '*' });
    const badEmail = await admin(['create', '--email', 'beheerder.school.nl']);
    expect(badEmail).toMatchObject({ code: 2, stdout: '', stderr: 'Ongeldig e-mailadres: beheerder.school.nl\n' });
    const cases = [['create'], ['promote', '--email', 'a@school.nl'], ['create', '--email', 'a@school.nl', '--admin']];
    const runs = await Promise.all(cases.map((args) => admin(args)));
    for (const [index, run] of runs.entries()) {
      const args = cases[index]!;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain('Gebruik:');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await database.knex('users').count({ count: '*' })).toEqual(before);
  });

  it('says the database cannot be reached in one line, exit code 1, without a stack trace', async () => {
    const url = new URL(database.url);
    url.pathname = '/devplein_no_such_database';
    const run = await admin(['list'], url.toString());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^De database is niet bereikbaar: PostgreSQL uit DATABASE_URL \(.*\)\. Controleer DATABASE_URL en of PostgreSQL draait\.\n$/);
  });

  it('leaves the embedded database alone while another process has it open (npm start)', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-admin-cli-'));
    try {
      // What PGlite keeps in its directory while a process has it open.
      await mkdir(path.join(dataDir, 'pglite'));
      await writeFile(path.join(dataDir, 'pglite', 'postmaster.pid'), '-42\n');
      const run = await admin(['list'], '', { DATA_DIR: dataDir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`De database is in gebruik: de ingebouwde database in ${path.join(dataDir, 'pglite')} (draait npm start?). Stop dat eerst, of gebruik DATABASE_URL.`);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
