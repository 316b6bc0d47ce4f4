import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { loadCurrentUser } from '../../auth/current-user.ts';
import { activeUser, signedInUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound, forbidden } from '../../errors.ts';
import { presentCurrentUser, presentProfile } from '../../presenters/present-user.ts';
import { mayViewProfile } from '../../policies/user-policy.ts';
import { userIdParams } from './schema.ts';

/** GET /api/user (who am I) and GET /api/user/{id} (someone's profile). */
export function userRoutes(deps: { knex: Knex }): AppRouter {
  const router: AppRouter = new Router();

  // The one API route a not-activated user may call: the web app needs it to show /not_verified.
  router.get('/api/user', (ctx) => {
    const user = signedInUser(ctx);
    ctx.body = presentCurrentUser(user);
  });

  router.get('/api/user/:id', async (ctx) => {
    const viewer = activeUser(ctx);
    const { id } = parseInput(ctx, userIdParams, 'params');
    const subject = await loadCurrentUser(deps.knex, id);
    if (!mayViewProfile(viewer)) throw forbidden();
    // Accounts that are not (or no longer) active are not shown to other students.
    const hidden = subject !== null && subject.email_verified_at === null && !viewer.admin && subject.id !== viewer.id;
    if (!subject || hidden) throw notFound();
    ctx.body = presentProfile(subject);
  });

  return router;
}
