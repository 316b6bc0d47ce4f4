import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { z } from 'zod';
import { createInitialAdmin } from '../commands/create-initial-admin.ts';
import { removeAdmin } from '../commands/remove-admin.ts';
import { isDatabaseUnavailable } from '../db/database-errors.ts';
import { createKnex } from '../db/knex.ts';
import { listAdmins, type AdminAccount } from '../queries/admins.ts';

/*
 * `devplein admin` — the sysadmin's way to the first admin, without SQL (`npm run admin -- …` in
 * the repository):
 *   admin create --email E [--name N]   makes E an activated admin (a second run changes nothing)
 *   admin remove --email E              E is no admin any more (refused for the last active one)
 *   admin list                          prints every admin
 * DATABASE_URL selects PostgreSQL; without it the embedded PGlite in DATA_DIR (default ./data),
 * as `npm run migrate`. Exit codes: 0 done (also "nothing changed"), 1 the database failed,
 * 2 wrong arguments, 3 refused (no such account, or the last active admin).
 */

const USAGE = `Gebruik:
  devplein admin create --email <e-mailadres> [--name <naam>]
      Maakt een geactiveerde beheerder aan, of maakt een bestaand account beheerder.
  devplein admin remove --email <e-mailadres>
      Het account is geen beheerder meer (niet voor de laatste actieve beheerder).
  devplein admin list
      Toont alle beheerders.
In de repository: npm run admin -- create --email <e-mailadres>
De database: DATABASE_URL, of anders de ingebouwde database in DATA_DIR (standaard ./data).`;

const EXIT_DATABASE = 1;
const EXIT_USAGE = 2;
const EXIT_REFUSED = 3;

class UsageError extends Error {}

type Invocation = { verb: 'create'; email: string; name?: string } | { verb: 'remove'; email: string } | { verb: 'list' };

const emailSchema = z.email();

function parseInvocation(args: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { email: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('', { cause: 'help' });
  const [verb, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`Onbekend argument: ${rest[0]}`);
  if (verb === 'list') {
    if (values.email !== undefined || values.name !== undefined) throw new UsageError('admin list neemt geen --email of --name.');
    return { verb: 'list' };
  }
  if (verb === 'create' || verb === 'remove') {
    if (values.email === undefined) throw new UsageError(`admin ${verb} heeft --email nodig.`);
    const email = values.email.trim().toLowerCase();
    if (!emailSchema.safeParse(email).success) throw new UsageError(`Ongeldig e-mailadres: ${values.email}`, { cause: 'email' });
    if (verb === 'remove') {
      if (values.name !== undefined) throw new UsageError('admin remove neemt geen --name.');
      return { verb, email };
    }
    if (values.name !== undefined && values.name.trim() === '') throw new UsageError('--name mag niet leeg zijn.');
    return { verb: 'create', email, name: values.name?.trim() };
  }
  throw new UsageError(verb === undefined ? 'Geef een opdracht: create, remove of list.' : `Onbekende opdracht: ${verb}`);
}

function describe(admin: AdminAccount): string {
  return `${admin.name} <${admin.email}> (#${admin.id})`;
}

async function run(invocation: Invocation): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = path.resolve(process.cwd(), process.env.DATA_DIR || 'data');
  const target = databaseUrl ? 'PostgreSQL uit DATABASE_URL' : `de ingebouwde database in ${path.join(dataDir, 'pglite')}`;
  // PGlite is one process's database: a second process on the same files would corrupt them.
  // Its postmaster.pid is there while a process has it open.
  const pgliteLock = path.join(dataDir, 'pglite', 'postmaster.pid');
  if (!databaseUrl && existsSync(pgliteLock)) {
    console.error(
      `De database is in gebruik: ${target} (draait npm start?). Stop dat eerst, of gebruik DATABASE_URL.\n` +
        `Draait er niets, dan is ${pgliteLock} blijven staan na een crash: verwijder het en probeer opnieuw.`,
    );
    process.exitCode = EXIT_DATABASE;
    return;
  }
  // knex would print every failed connection attempt with its stack: the message below says it once.
  const quiet = () => {};
  const knex = createKnex({ databaseUrl, dataDir, log: process.env.DEVPLEIN_DEBUG ? undefined : { warn: quiet, error: quiet, debug: quiet } });
  try {
    if (invocation.verb === 'list') {
      const admins = await listAdmins(knex);
      if (admins.length === 0) console.log('Er zijn nog geen beheerders.');
      for (const admin of admins) console.log(`${describe(admin)}${admin.active ? '' : '  (niet actief: niet geactiveerd of uitgeschakeld)'}`);
      return;
    }
    if (invocation.verb === 'remove') {
      await remove(knex, invocation.email);
      return;
    }
    const outcome = await createInitialAdmin(knex, { email: invocation.email, name: invocation.name });
    if (outcome.change === 'created') {
      console.log(
        `Beheerder aangemaakt: ${describe(outcome.admin)}. Bij de eerste keer inloggen wordt het schoolaccount eraan gekoppeld, ` +
          'als de inlogdienst het e-mailadres geverifieerd noemt (email_verified). Entra ID doet dat niet: laat de persoon dan eerst inloggen en voer dit daarna uit.',
      );
    } else if (outcome.change === 'promoted') {
      console.log(`Beheerder gemaakt: ${describe(outcome.admin)} is nu een geactiveerde beheerder.`);
    } else {
      console.log(`Niets veranderd: ${outcome.admin.email} is al beheerder.`);
    }
    if (invocation.name && outcome.change !== 'created') console.log(`De naam is niet gewijzigd (--name geldt alleen voor een nieuw account).`);
    if (outcome.hostAccessPending) {
      console.log(
        'De toegang tot de dev-servers (databases, VPN, SSH-sleutels) komt terug zodra de control plane draait: die probeert openstaande wijzigingen elke minuut opnieuw (HOST_ACCESS_RETRY_CRON).',
      );
    }
  } catch (error) {
    process.exitCode = EXIT_DATABASE;
    console.error(databaseFailure(error, target));
  } finally {
    await knex.destroy();
  }
}

async function remove(knex: Knex, email: string): Promise<void> {
  const outcome = await removeAdmin(knex, { email });
  if (outcome.change === 'unknown') {
    console.error(`Niet gedaan: er is geen account met het e-mailadres ${email}.`);
    process.exitCode = EXIT_REFUSED;
  } else if (outcome.change === 'last-admin') {
    console.error(`Niet gedaan: ${outcome.admin.email} is de laatste actieve beheerder. Maak eerst een andere beheerder aan (devplein admin create).`);
    process.exitCode = EXIT_REFUSED;
  } else if (outcome.change === 'unchanged') {
    console.log(`Niets veranderd: ${outcome.admin.email} is geen beheerder.`);
  } else {
    console.log(`Geen beheerder meer: ${describe(outcome.admin)}. Het account zelf blijft bestaan.`);
  }
}

/** One clear line for what went wrong with the database; no stack trace (DEVPLEIN_DEBUG=1 prints it too). */
function databaseFailure(error: unknown, target: string): string {
  const code = pgCode(error);
  const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
  if (process.env.DEVPLEIN_DEBUG) console.error(error);
  if (isDatabaseUnavailable(error) || code === '3D000' || code === '28P01' || code === '28000') {
    return `De database is niet bereikbaar: ${target} (${reason}). Controleer DATABASE_URL en of PostgreSQL draait.`;
  }
  if (code === '42P01') return `De database (${target}) heeft nog geen tabellen: voer eerst de migraties uit (npm run migrate, of start de control plane één keer).`;
  return `Mislukt op ${target}: ${reason}`;
}

function pgCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, nativeError } = error as { code?: unknown; nativeError?: unknown };
  if (typeof code === 'string') return code;
  return nativeError === undefined ? undefined : pgCode(nativeError);
}

let invocation: Invocation;
try {
  invocation = parseInvocation(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  if (error.cause === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  console.error(error.message);
  // A bad address says only that; everything else shows how the command is used.
  if (error.cause !== 'email') console.error(USAGE);
  process.exit(EXIT_USAGE);
}
await run(invocation);
