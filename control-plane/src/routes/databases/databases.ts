import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayUseDatabases, ownsDatabase } from '../../policies/database-policy.ts';
import { createUserDatabase, type DatabaseCommandDeps } from '../../commands/create-user-database.ts';
import { dropUserDatabase } from '../../commands/drop-user-database.ts';
import { loadDatabase, loadUserDatabases } from '../../queries/databases.ts';
import { presentUserDatabases } from '../../presenters/present-database.ts';
import { databaseIdParams, newDatabaseBody } from './schema.ts';

/** The signed-in developer, or 401/403 (spec §6: databases are for developers). */
function developer(ctx: AppContext): CurrentUser {
  const user = activeUser(ctx);
  if (!mayUseDatabases(user)) throw forbidden('Databases zijn alleen voor ontwikkelaars.');
  return user;
}

/** The list carries passwords: never cached by the browser or a proxy. */
const noStore = (ctx: AppContext): void => {
  ctx.set('Cache-Control', 'no-store');
};

/**
 * The developer's own MySQL/MariaDB databases (spec §7): GET/POST /api/user/databases and
 * DELETE /api/user/databases/{id}, each answering the updated list `[{id, name, user, password}]`.
 */
export function databaseRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'secrets' | 'logger'>): AppRouter {
  const commandDeps: DatabaseCommandDeps = {
    knex: deps.knex,
    agents: deps.agents,
    secrets: deps.secrets,
    logger: deps.logger.child({ component: 'databases' }),
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

  router.get('/api/user/databases', async (ctx) => {
    const user = developer(ctx);
    noStore(ctx);
    ctx.body = await databaseList(user.id);
  });

  router.post('/api/user/databases', async (ctx) => {
    const user = developer(ctx);
    const { db } = parseInput(ctx, newDatabaseBody, 'body');
    noStore(ctx);
    await createUserDatabase(commandDeps, user.id, db, ctx.state.requestId);
    ctx.body = await databaseList(user.id);
  });

  router.delete('/api/user/databases/:id', async (ctx) => {
    const user = developer(ctx);
    const { id } = parseInput(ctx, databaseIdParams, 'params');
    const database = await loadDatabase(deps.knex, id);
    if (!database || !ownsDatabase(user, database)) throw notFound('Deze database bestaat niet.');
    noStore(ctx);
    await dropUserDatabase(commandDeps, database, ctx.state.requestId);
    ctx.body = await databaseList(database.user_id);
  });

  return router;
}
