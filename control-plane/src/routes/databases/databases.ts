import Router from '@koa/router';
import { createDatabase, dropDatabase, listDatabases } from '@devplein/contract/http/databases';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { ownsDatabase } from '../../policies/database-policy.ts';
import { createUserDatabase, type DatabaseCommandDeps } from '../../commands/create-user-database.ts';
import { dropUserDatabase } from '../../commands/drop-user-database.ts';
import { loadDatabase, loadUserDatabases } from '../../queries/databases.ts';
import { presentUserDatabases } from '../../presenters/present-database.ts';
import { handle } from '../handle.ts';

/** The list carries passwords: never cached by the browser or a proxy. */
const noStore = (ctx: AppContext): void => {
  ctx.set('Cache-Control', 'no-store');
};

/**
 * The developer's own MySQL/MariaDB databases (spec §7): GET/POST /api/user/databases and
 * DELETE /api/user/databases/{id}, each answering the updated list `[{id, name, user, password}]`.
 */
export function databaseRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'secrets' | 'logger' | 'services'>): AppRouter {
  const commandDeps: DatabaseCommandDeps = {
    knex: deps.knex,
    agents: deps.agents,
    secrets: deps.secrets,
    logger: deps.logger.child({ component: 'databases' }),
    locks: deps.services.locks,
  };
  const router: AppRouter = new Router();
  /** Every answer is the user's updated list. */
  const databaseList = async (userId: number) =>
    presentUserDatabases(
      await loadUserDatabases(deps.knex, userId),
      (sealed) => deps.secrets.open(sealed),
      (host) => {
        const link = deps.agents.link(host);
        return { host: link.studentDbHost, port: link.studentDbPort };
      },
    );

  // Developers only (spec §6): the endpoints' declared access (contract/src/http/databases.ts).
  handle(router, listDatabases, async (ctx, { caller }) => {
    noStore(ctx);
    return databaseList(caller.id);
  });

  handle(router, createDatabase, async (ctx, { caller, body: { db } }) => {
    noStore(ctx);
    await createUserDatabase(commandDeps, caller.id, db, ctx.state.requestId);
    return databaseList(caller.id);
  });

  handle(router, dropDatabase, async (ctx, { caller, params: { id } }) => {
    const database = await loadDatabase(deps.knex, id);
    if (!database || !ownsDatabase(caller, database)) throw notFound('Deze database bestaat niet.');
    noStore(ctx);
    await dropUserDatabase(commandDeps, database, ctx.state.requestId);
    return databaseList(database.user_id);
  });

  return router;
}
