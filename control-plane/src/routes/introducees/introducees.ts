import Router from '@koa/router';
import type { Logger } from 'pino';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { createIntroducee } from '../../commands/create-introducee.ts';
import { deleteIntroducee } from '../../commands/delete-introducee.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import type { Introducee } from '../../models/Introducee.ts';
import { authorizeIntroduceeManagement } from '../../policies/introducee-policy.ts';
import { presentIntroducee, type IntroduceeJson } from '../../presenters/present-introducee.ts';
import { listIntroducees } from '../../queries/introducees.ts';
import { introduceeIdParams, newIntroduceeBody } from './schema.ts';

/** Every introducee as the admin sees them, passwords opened. */
function presentIntroducees(rows: Introducee[], secrets: SecretBox, siteDomain: string, log: Logger): IntroduceeJson[] {
  return rows.map((row) => {
    let password = '';
    try {
      password = secrets.open(row.password_encrypted);
    } catch {
      // A changed ENCRYPTION_KEY: the list still loads; the admin can delete and recreate this one.
      log.warn({ introduceeId: row.id }, 'introducee password cannot be opened (encryption key changed?)');
    }
    return presentIntroducee(row, siteDomain, password);
  });
}

/** Routes of introducees, 'meelopers' (/api/admin/introduction, the URL as the web app calls it): admins only. */
export function introduceeRoutes(deps: AppDeps): AppRouter {
  const { knex, secrets, config } = deps;
  const siteDomain = config.SITE_DOMAIN;
  const router: AppRouter = new Router();
  const answer = async (log: Logger): Promise<IntroduceeJson[]> => presentIntroducees(await listIntroducees(knex), secrets, siteDomain, log);

  router.get('/api/admin/introduction', async (ctx) => {
    authorizeIntroduceeManagement(activeUser(ctx));
    ctx.body = await answer(ctx.state.log);
  });

  router.post('/api/admin/introduction', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeIntroduceeManagement(admin);
    const { name } = parseInput(ctx, newIntroduceeBody, 'body');
    await createIntroducee({ knex, secrets, siteDomain }, admin.id, name);
    ctx.state.log.info({ introducee: name }, 'introducee created');
    ctx.body = await answer(ctx.state.log);
  });

  router.delete('/api/admin/introduction/:id', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeIntroduceeManagement(admin);
    const { id } = parseInput(ctx, introduceeIdParams, 'params');
    await deleteIntroducee({ knex, siteDomain }, admin.id, id);
    ctx.state.log.info({ introduceeId: id }, 'introducee deleted');
    ctx.body = await answer(ctx.state.log);
  });

  return router;
}
