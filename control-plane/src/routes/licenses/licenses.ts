import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { requestLicense } from '../../commands/request-license.ts';
import { toggleLicenseApproval } from '../../commands/toggle-license-approval.ts';
import { withdrawLicense } from '../../commands/withdraw-license.ts';
import { authorizeLicenseApproval, mayRequestLicenses, mayWithdrawLicense, ownsLicense } from '../../policies/license-policy.ts';
import { presentAdminLicense, presentOwnLicense, type AdminLicenseJson } from '../../presenters/present-license.ts';
import { allLicenseRows, findLicense, licenseRowsOf } from '../../queries/licenses.ts';
import { LICENSE_ALREADY_APPROVED_MESSAGE } from '@devplein/contract/validation/licensesAndIntroducees';
import { licenseIdParams, newLicenseBody } from './schema.ts';

const NOT_FOUND_MESSAGE = 'Deze licentie bestaat niet.';

/**
 * Routes of licences: users request their own from the profile (/api/user/licenses); admins see
 * every request and tick approval on and off (/api/admin/licenses).
 */
export function licenseRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  router.get('/api/admin/licenses', async (ctx) => {
    authorizeLicenseApproval(activeUser(ctx));
    ctx.body = (await allLicenseRows(knex)).map(presentAdminLicense);
  });

  // Toggles: the first PUT approves, the next one revokes (the admin's tick).
  router.put('/api/admin/licenses/:id', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeLicenseApproval(admin);
    const { id } = parseInput(ctx, licenseIdParams, 'params');
    const updated: AdminLicenseJson = presentAdminLicense(await toggleLicenseApproval(knex, admin.id, id));
    ctx.state.log.info({ licenseId: id, approved: updated.approved }, updated.approved ? 'licence approved' : 'licence revoked');
    ctx.body = updated;
  });

  router.get('/api/user/licenses', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    ctx.body = (await licenseRowsOf(knex, user.id)).map(presentOwnLicense);
  });

  router.post('/api/user/licenses', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    const input = parseInput(ctx, newLicenseBody, 'body');
    await requestLicense(knex, user.id, input);
    ctx.state.log.info({ userId: user.id }, 'licence requested');
    ctx.body = (await licenseRowsOf(knex, user.id)).map(presentOwnLicense);
  });

  router.delete('/api/user/licenses/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    const { id } = parseInput(ctx, licenseIdParams, 'params');
    const license = await findLicense(knex, id);
    if (!license || !ownsLicense(user, license)) throw notFound(NOT_FOUND_MESSAGE);
    if (!mayWithdrawLicense(license)) {
      throw new HttpError(422, LICENSE_ALREADY_APPROVED_MESSAGE, { errors: { license: [LICENSE_ALREADY_APPROVED_MESSAGE] } });
    }
    // Only while still pending: an approval that lands in between wins.
    const removed = await withdrawLicense(knex, user.id, id);
    if (removed === 0) {
      throw new HttpError(422, LICENSE_ALREADY_APPROVED_MESSAGE, { errors: { license: [LICENSE_ALREADY_APPROVED_MESSAGE] } });
    }
    ctx.state.log.info({ userId: user.id, licenseId: id }, 'licence request withdrawn');
    ctx.body = (await licenseRowsOf(knex, user.id)).map(presentOwnLicense);
  });

  return router;
}
