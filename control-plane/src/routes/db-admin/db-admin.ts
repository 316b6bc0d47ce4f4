import Router from '@koa/router';
import { databaseAdminLink, redeemSignonTicket as redeemSignonTicketEndpoint } from '@devplein/contract/http/db-admin';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { HttpError, notFound, unauthenticated } from '../../errors.ts';
import { ownsDatabase } from '../../policies/database-policy.ts';
import { loadDatabase } from '../../queries/databases.ts';
import { isSignonSecret, mintSignonTicket } from '../../lib/db-admin-ticket.ts';
import { redeemSignonTicket } from '../../commands/redeem-signon-ticket.ts';
import { presentSignonCredentials } from '../../presenters/present-signon-credentials.ts';
import { handle } from '../handle.ts';

/** phpMyAdmin's signon script redeems tickets here (exempt from CSRF: it has no session). */
export const DB_ADMIN_SIGNON_PATH = redeemSignonTicketEndpoint.path;

/** The spec's admin link: `{DB_ADMIN_URL}?db={name}&link=true`. */
export function dbAdminLink(base: string, name: string): string {
  const separator = base.includes('?') ? '&' : '?';
  return `${base}${separator}db=${encodeURIComponent(name)}&link=true`;
}

/**
 * Signing a student straight into phpMyAdmin for one database (beyond the spec; see
 * deploy/phpmyadmin/; contract/src/http/db-admin.ts). phpMyAdmin lives on its own origin (DB_ADMIN_SIGNON_URL's, never
 * APP_URL's), and a ticket works only in the browser that asked for it, the OAuth `state` way:
 *
 * 1. GET /api/user/databases/{id}/admin (the page's admin link) sends the browser to the sign-on
 *    page on phpMyAdmin's origin, `DB_ADMIN_SIGNON_URL?database={id}`;
 * 2. that page sets a random nonce in its own cookie and sends the browser back here with it:
 *    GET /api/user/databases/{id}/admin?state={nonce};
 * 3. for the signed-in owner this makes a one-time ticket (a minute) bound to the database, the
 *    owner, the session's sign-in and the nonce, and sends the browser to
 *    `DB_ADMIN_SIGNON_URL?ticket=…` — never the password in a URL;
 * 4. the page redeems it server to server with the nonce of its cookie: POST /api/db-admin/signon
 *    (a shared secret instead of a session), once, for the database's account.
 *
 * A ticket opened in another browser has no (or another) nonce and is refused. Without
 * DB_ADMIN_SIGNON_URL the link sends the browser to the spec's link. The ticket is signed, not
 * stored: the link is a GET and writes nothing.
 */
export function dbAdminRoutes(deps: Pick<AppDeps, 'knex' | 'secrets' | 'config' | 'agents'>): AppRouter {
  const router: AppRouter = new Router();
  const { config } = deps;
  /** Signs the tickets (every control-plane process shares the session secret). */
  const ticketKey = (): Buffer => Buffer.from(config.sessionSecret);

  handle(router, databaseAdminLink, async (ctx, { caller: user, params: { id }, query: { state } }) => {
    const database = await loadDatabase(deps.knex, id);
    if (!database || !ownsDatabase(user, database)) throw notFound('Deze database bestaat niet.');
    ctx.set('Cache-Control', 'no-store');
    const signonUrl = config.DB_ADMIN_SIGNON_URL;
    if (!signonUrl) {
      ctx.redirect(dbAdminLink(deps.agents.link(database.host).dbAdminUrl, database.name));
      return;
    }
    const target = new URL(signonUrl);
    if (state === undefined) {
      // First to the sign-on page: it gives this browser its nonce.
      target.searchParams.set('database', String(database.id));
    } else {
      const signedInAt = ctx.session?.signedInAt;
      if (typeof signedInAt !== 'number') throw unauthenticated();
      target.searchParams.set('ticket', mintSignonTicket(ticketKey(), { databaseId: database.id, userId: user.id, signedInAt }, state));
    }
    ctx.redirect(target.toString());
  });

  handle(router, redeemSignonTicketEndpoint, async (ctx, request) => {
    const secret = config.DB_ADMIN_SIGNON_SECRET;
    if (!config.DB_ADMIN_SIGNON_URL || !secret) throw new HttpError(501, 'Aanmelden bij het databasebeheer via devplein staat op deze server uit.');
    const presented = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1];
    if (!isSignonSecret(presented, secret)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'Onbekende aanvrager.');
    }
    // The body is read (and parsed: 422) only after the secret.
    const { token, state } = request.body;
    const credentials = await redeemSignonTicket(deps.knex, deps.secrets, ticketKey(), { token, state }, (host) => ({ host: deps.agents.link(host).studentDbHost, port: deps.agents.link(host).studentDbPort }));
    if (!credentials) throw notFound('Dit ticket is onbekend, al gebruikt, verlopen of niet van deze browser.');
    ctx.set('Cache-Control', 'no-store');
    return presentSignonCredentials(credentials);
  });

  return router;
}
