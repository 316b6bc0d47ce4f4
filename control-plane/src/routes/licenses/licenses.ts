import Router from '@koa/router';
import { listAllLicenses, listOwnLicenses, requestLicense as requestLicenseEndpoint, toggleLicenseApproval as toggleLicenseApprovalEndpoint, withdrawLicense as withdrawLicenseEndpoint } from '@devplein/contract/http/licenses';
import { LICENSE_ALREADY_APPROVED_MESSAGE } from '@devplein/contract/validation/licensesAndIntroducees';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { HttpError, notFound } from '../../errors.ts';
import { requestLicense } from '../../commands/request-license.ts';
import { toggleLicenseApproval } from '../../commands/toggle-license-approval.ts';
import { withdrawLicense } from '../../commands/withdraw-license.ts';
import { mayWithdrawLicense, ownsLicense } from '../../policies/license-policy.ts';
import { presentAdminLicense, presentOwnLicense } from '../../presenters/present-license.ts';
import { allLicenseRows, findLicense, licenseRowsOf } from '../../queries/licenses.ts';
import { handle } from '../handle.ts';

const NOT_FOUND_MESSAGE = 'Deze licentie bestaat niet.';

const alreadyApproved = () => new HttpError(422, LICENSE_ALREADY_APPROVED_MESSAGE, { errors: { license: [LICENSE_ALREADY_APPROVED_MESSAGE] } });

/**
 * Routes of licences (contract/src/http/licenses.ts): users request their own from the profile
 * (/api/user/licenses, every activated account); admins see every request and tick approval on
 * and off (/api/admin/licenses).
 */
export function licenseRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();
  const ownList = async (userId: number) => (await licenseRowsOf(knex, userId)).map(presentOwnLicense);

  handle(router, listAllLicenses, async () => (await allLicenseRows(knex)).map(presentAdminLicense));

  // Toggles: the first PUT approves, the next one revokes (the admin's tick).
  handle(router, toggleLicenseApprovalEndpoint, async (ctx, { caller: admin, params: { id } }) => {
    const updated = presentAdminLicense(await toggleLicenseApproval(knex, admin.id, id));
    ctx.state.log.info({ licenseId: id, approved: updated.approved }, updated.approved ? 'licence approved' : 'licence revoked');
    return updated;
  });

  handle(router, listOwnLicenses, async (_ctx, { caller }) => ownList(caller.id));

  handle(router, requestLicenseEndpoint, async (ctx, { caller: user, body }) => {
    await requestLicense(knex, user.id, body);
    ctx.state.log.info({ userId: user.id }, 'licence requested');
    return ownList(user.id);
  });

  handle(router, withdrawLicenseEndpoint, async (ctx, { caller: user, params: { id } }) => {
    const license = await findLicense(knex, id);
    if (!license || !ownsLicense(user, license)) throw notFound(NOT_FOUND_MESSAGE);
    if (!mayWithdrawLicense(license)) throw alreadyApproved();
    // Only while still pending: an approval that lands in between wins.
    if ((await withdrawLicense(knex, user.id, id)) === 0) throw alreadyApproved();
    ctx.state.log.info({ userId: user.id, licenseId: id }, 'licence request withdrawn');
    return ownList(user.id);
  });

  return router;
}
