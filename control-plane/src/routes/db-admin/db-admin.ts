import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { mayUseDatabases, ownsDatabase } from '../../policies/database-policy.ts';
import { loadDatabase } from '../../queries/databases.ts';
import { isSignonSecret, mintSignonTicket } from '../../lib/db-admin-ticket.ts';
import { redeemSignonTicket } from '../../commands/redeem-signon-ticket.ts';
import { presentSignonCredentials } from '../../presenters/present-signon-credentials.ts';
import { databaseIdParams } from '../databases/schema.ts';
import { signonRedeemBody } from './schema.ts';

/** phpMyAdmin's signon script redeems tickets here (exempt from CSRF: it has no session). */
export const DB_ADMIN_SIGNON_PATH = '/api/db-admin/signon';

/** The spec's admin link: `{DB_ADMIN_URL}?db={name}&link=true`. */
export function dbAdminLink(base: string, name: string): string {
  const separator = base.includes('?') ? '&' : '?';
  return `${base}${separator}db=${encodeURIComponent(name)}&link=true`;
}

/**
 * Signing a student straight into phpMyAdmin for one database (beyond the spec; see
 * deploy/phpmyadmin/). GET /api/user/databases/{id}/admin is the page's admin link: with
 * DB_ADMIN_SIGNON_URL set it makes a one-time ticket (a minute) and sends the browser to the
 * signon script with it — never the password in a URL; without, it sends the browser to the
 * spec's link. The ticket is signed, not stored: the link is a GET and writes nothing.
 * POST /api/db-admin/signon is for that script only (server to server, a shared secret instead
 * of a session): it redeems the ticket, once, for the database's account.
 */
export function dbAdminRoutes(deps: Pick<AppDeps, 'knex' | 'secrets' | 'config' | 'agents'>): AppRouter {
  const router: AppRouter = new Router();
  const { config } = deps;
  /** Signs the tickets (every control-plane process shares the session secret). */
  const ticketKey = (): Buffer => Buffer.from(config.sessionSecret);

  router.get('/api/user/databases/:id/admin', async (ctx: AppContext) => {
    const { id } = parseInput(ctx, databaseIdParams, 'params');
    const user = activeUser(ctx);
    if (!mayUseDatabases(user)) throw forbidden('Databases zijn alleen voor ontwikkelaars.');
    const database = await loadDatabase(deps.knex, id);
    if (!database || !ownsDatabase(user, database)) throw notFound('Deze database bestaat niet.');
    ctx.set('Cache-Control', 'no-store');
    if (!config.DB_ADMIN_SIGNON_URL) {
      ctx.redirect(dbAdminLink(deps.agents.link(database.host).dbAdminUrl, database.name));
      return;
    }
    const ticket = mintSignonTicket(ticketKey(), database);
    const target = new URL(config.DB_ADMIN_SIGNON_URL, config.appUrl);
    target.searchParams.set('ticket', ticket);
    ctx.redirect(target.toString());
  });

  router.post(DB_ADMIN_SIGNON_PATH, async (ctx: AppContext) => {
    const secret = config.DB_ADMIN_SIGNON_SECRET;
    if (!config.DB_ADMIN_SIGNON_URL || !secret) throw new HttpError(501, 'Aanmelden bij het databasebeheer via devplein staat op deze server uit.');
    const presented = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1];
    if (!isSignonSecret(presented, secret)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'Onbekende aanvrager.');
    }
    const { token } = parseInput(ctx, signonRedeemBody, 'body');
    const credentials = await redeemSignonTicket(deps.knex, deps.secrets, ticketKey(), token, (host) => ({ host: deps.agents.link(host).studentDbHost, port: deps.agents.link(host).studentDbPort }));
    if (!credentials) throw notFound('Dit ticket is onbekend, al gebruikt of verlopen.');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentSignonCredentials(credentials);
  });

  return router;
}
