import Router from '@koa/router';
import type { Logger } from 'pino';
import { createIntroducee as createIntroduceeEndpoint, deleteIntroducee as deleteIntroduceeEndpoint, listIntroducees as listIntroduceesEndpoint } from '@devplein/contract/http/introducees';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { createIntroducee } from '../../commands/create-introducee.ts';
import { deleteIntroducee } from '../../commands/delete-introducee.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Introducee } from '../../models/Introducee.ts';
import { presentIntroducee, type IntroduceeJson } from '../../presenters/present-introducee.ts';
import { listIntroducees } from '../../queries/introducees.ts';
import { handle } from '../handle.ts';

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

/** Routes of introducees, 'meelopers' (contract/src/http/introducees.ts): admins only. */
export function introduceeRoutes(deps: AppDeps): AppRouter {
  const { knex, secrets, config } = deps;
  const siteDomain = config.SITE_DOMAIN;
  const router: AppRouter = new Router();
  const answer = async (log: Logger): Promise<IntroduceeJson[]> => presentIntroducees(await listIntroducees(knex), secrets, siteDomain, log);

  handle(router, listIntroduceesEndpoint, async (ctx) => answer(ctx.state.log));

  handle(router, createIntroduceeEndpoint, async (ctx, { caller: admin, body: { name } }) => {
    await createIntroducee({ knex, secrets, siteDomain }, admin.id, name);
    ctx.state.log.info({ introducee: name }, 'introducee created');
    return answer(ctx.state.log);
  });

  handle(router, deleteIntroduceeEndpoint, async (ctx, { caller: admin, params: { id } }) => {
    await deleteIntroducee({ knex, siteDomain }, admin.id, id);
    ctx.state.log.info({ introduceeId: id }, 'introducee deleted');
    return answer(ctx.state.log);
  });

  return router;
}
