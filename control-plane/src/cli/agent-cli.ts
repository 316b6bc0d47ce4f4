import { parseArgs } from 'node:util';
import path from 'node:path';
import { agentInvitationInput } from '@devplein/contract/agent-links';
import type { Config } from '../config.ts';
import { createKnex } from '../db/knex.ts';
import { AgentLinkRefusal, inviteAgent, listAgentLinks, revokeAgent } from '../agent-links/agent-link-store.ts';
import { joinCommand, joinString, JoinUnavailable, loadJoinAuthority } from '../agent-links/join-authority.ts';
import { readReleaseSigner } from '../agent-links/release-signer.ts';

/*
 * `devplein agent invite|revoke|list` — the dev servers' links from the control plane's server
 * (`npm run agent-link -- …` in the repository). Run it with the control plane's env file (its
 * database, APP_URL, AGENT_TLS_CA, AGENT_CA_KEY_FILE). The running control plane follows each
 * change at once (migration 0014's notice). Exit codes: 0 done (also: revoke of a link that was
 * already revoked), 1 the database or the CA failed, 2 wrong arguments, 3 refused (an unknown
 * name, the last active link, an invitation of an active name).
 */

const USAGE = `Gebruik:
  devplein agent invite <naam> --address <host:poort> --site-domain <domein> [--db-host <adres>] [--db-admin-url <url>]
      Maakt een eenmalige koppelopdracht (1 uur geldig) voor een nieuwe ontwikkelserver.
  devplein agent revoke <naam>
      Trekt de koppeling in: de control plane gebruikt de server direct niet meer.
  devplein agent list
      Toont alle ontwikkelservers en hun koppeling.
Met de instellingen van de control plane (EnvironmentFile=/etc/devplein/control-plane.env).`;

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_REFUSED = 3;

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(EXIT_USAGE);
}

/** The few settings this needs, from the control plane's environment (not all of loadConfig: no sign-in, no secrets). */
function cliConfig() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined && value !== ''));
  const nodeEnv = env.NODE_ENV ?? 'development';
  return {
    DATABASE_URL: env.DATABASE_URL,
    DATA_DIR: path.resolve(env.DATA_DIR ?? 'data'),
    NODE_ENV: nodeEnv as Config['NODE_ENV'],
    appUrl: (env.APP_URL ?? `http://localhost:${env.PORT ?? '8080'}`).replace(/\/$/, ''),
    AGENT_TLS_CA: env.AGENT_TLS_CA,
    AGENT_TLS_CERT: env.AGENT_TLS_CERT,
    AGENT_TLS_KEY: env.AGENT_TLS_KEY,
    AGENT_CA_KEY_FILE: env.AGENT_CA_KEY_FILE,
  };
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    strict: true,
    options: {
      address: { type: 'string' },
      'site-domain': { type: 'string' },
      'db-host': { type: 'string' },
      'db-admin-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  usage((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [verb, name, ...rest] = positionals;
if (rest.length > 0) usage(`Onbekend argument: ${rest[0]}`);
if (verb !== 'invite' && verb !== 'revoke' && verb !== 'list') usage(verb === undefined ? 'Geef een opdracht: invite, revoke of list.' : `Onbekende opdracht: ${verb}`);
if (verb !== 'list' && !name) usage(`agent ${verb} heeft de naam van de ontwikkelserver nodig.`);

const config = cliConfig();
const knex = createKnex({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  if (verb === 'list') {
    const links = await listAgentLinks(knex);
    if (links.length === 0) console.log('Er zijn nog geen ontwikkelservers (start de control plane één keer).');
    for (const link of links) {
      const pin = link.cert_fingerprint ? `certificaat sha256 ${link.cert_fingerprint}` : 'certificaat niet vastgepind';
      console.log(`${link.name}\t${link.status}\t${link.address}\t${link.site_domain}\t${pin}`);
    }
  } else if (verb === 'revoke') {
    const row = await revokeAgent(knex, name as string, null);
    if (row) console.log(`Koppeling met ${row.name} ingetrokken. De control plane gebruikt deze server niet meer; een nieuwe koppeling kan met devplein agent invite ${row.name}.`);
    else {
      // Nothing to revoke: already revoked (the wanted state holds, exit 0) or not a dev server at all.
      const known = (await listAgentLinks(knex)).find((link) => link.name === name);
      if (known?.status === 'revoked') {
        const when = known.revoked_at ? ` op ${known.revoked_at.toISOString()}` : '';
        console.log(`Koppeling met ${known.name} was al ingetrokken${when}. Er is niets veranderd.`);
      } else {
        console.error(`Niet gedaan: ${name} is geen ontwikkelserver van deze control plane (devplein agent list toont ze).`);
        process.exitCode = EXIT_REFUSED;
      }
    }
  } else {
    const input = agentInvitationInput.safeParse({
      name,
      address: values.address,
      site_domain: values['site-domain'],
      db_host: values['db-host'],
      db_admin_url: values['db-admin-url'],
    });
    if (!input.success) usage(input.error.issues.map((issue) => `--${String(issue.path[0]).replace(/_/g, '-')}: ${issue.message}`).join('\n'));
    const authority = await loadJoinAuthority(config);
    const invitation = await inviteAgent(knex, {
      name: input.data.name,
      address: input.data.address,
      siteDomain: input.data.site_domain,
      studentDbHost: input.data.db_host,
      dbAdminUrl: input.data.db_admin_url,
      actorId: null,
    });
    console.log(`Koppelopdracht voor ${invitation.link.name}, eenmalig en geldig tot ${invitation.expiresAt.toISOString()}. Voer dit uit op de nieuwe server, in de uitgepakte bundel:\n`);
    console.log(`  ${joinCommand(await readReleaseSigner())}\n`);
    console.log('en plak deze koppelcode als install.sh erom vraagt (zo staat hij op geen opdrachtregel):\n');
    console.log(`  ${joinString(config.appUrl, invitation.token, authority.caFingerprint)}\n`);
  }
} catch (error) {
  if (error instanceof AgentLinkRefusal || error instanceof JoinUnavailable) {
    console.error(`Niet gedaan: ${error.message}`);
    process.exitCode = error instanceof AgentLinkRefusal ? EXIT_REFUSED : EXIT_FAILED;
  } else {
    console.error(`Mislukt: ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}`);
    if (process.env.DEVPLEIN_DEBUG) console.error(error);
    process.exitCode = EXIT_FAILED;
  }
} finally {
  await knex.destroy();
}
