import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import {
  authorizeLicenseApproval,
  MAX_PENDING_LICENSES_PER_USER,
  mayRequestLicenses,
  mayWithdrawLicense,
  ownsLicense,
} from '../../policies/license-policy.ts';
import {
  presentAdminLicense,
  presentOwnLicense,
  type AdminLicenseJson,
  type LicenseRow,
  type OwnLicenseJson,
} from '../../presenters/present-license.ts';
import { LICENSE_ALREADY_APPROVED_MESSAGE } from '@devplein/contract/validation/licensesAndIntroducees';
import { licenseIdParams, newLicenseBody } from './schema.ts';

const NOT_FOUND_MESSAGE = 'Deze licentie bestaat niet.';

/** Licences joined with their holder's name, newest first. */
const licenseRows = (db: Knex | Knex.Transaction) =>
  db('licenses as l')
    .join('users as u', 'u.id', 'l.user_id')
    .select<LicenseRow[]>('l.id', 'l.user_id', 'l.description', 'l.license', 'l.approved_at', 'l.created_at', 'u.name as user_name')
    .orderBy([
      { column: 'l.created_at', order: 'desc' },
      { column: 'l.id', order: 'desc' },
    ]);

async function ownLicenses(knex: Knex, userId: number): Promise<OwnLicenseJson[]> {
  return (await licenseRows(knex).where('l.user_id', userId)).map(presentOwnLicense);
}

/**
 * Routes of licences: users request their own from the profile (/api/user/licenses); admins see
 * every request and tick approval on and off (/api/admin/licenses).
 */
export function licenseRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  router.get('/api/admin/licenses', async (ctx) => {
    authorizeLicenseApproval(activeUser(ctx));
    ctx.body = (await licenseRows(knex)).map(presentAdminLicense);
  });

  // Toggles: the first PUT approves, the next one revokes (the admin's tick).
  router.put('/api/admin/licenses/:id', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeLicenseApproval(admin);
    const { id } = parseInput(ctx, licenseIdParams, 'params');
    const updated: AdminLicenseJson = await knex.transaction(async (trx) => {
      // Locked, so two ticks at once toggle twice instead of both reading the same state.
      const current = await trx('licenses')
        .where('id', id)
        .forUpdate()
        .first<{ id: number; approved_at: Date | null; approved_by: number | null } | undefined>('id', 'approved_at', 'approved_by');
      if (!current) throw notFound(NOT_FOUND_MESSAGE);
      const approve = current.approved_at === null;
      const change = approve ? { approved_at: trx.fn.now(), approved_by: admin.id } : { approved_at: null, approved_by: null };
      await trx('licenses').where('id', id).update(change);
      const row = await licenseRows(trx).where('l.id', id).first();
      if (!row) throw notFound(NOT_FOUND_MESSAGE);
      const after = presentAdminLicense(row);
      await recordAudit(trx, {
        actorId: admin.id,
        action: approve ? 'license.approve' : 'license.revoke',
        subjectType: 'license',
        subjectId: id,
        before: { approved_at: current.approved_at ? new Date(current.approved_at).toISOString() : null, approved_by: current.approved_by },
        after: { approved_at: after.approved_at, approved_by: approve ? admin.id : null },
      });
      return after;
    });
    ctx.state.log.info({ licenseId: id, approved: updated.approved }, updated.approved ? 'licence approved' : 'licence revoked');
    ctx.body = updated;
  });

  router.get('/api/user/licenses', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    ctx.body = await ownLicenses(knex, user.id);
  });

  router.post('/api/user/licenses', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    const input = parseInput(ctx, newLicenseBody, 'body');
    await knex.transaction(async (trx) => {
      // Lock the user's row so two requests at once cannot pass the limit together.
      await trx('users').where('id', user.id).forUpdate().first('id');
      const pending = await trx('licenses')
        .where('user_id', user.id)
        .whereNull('approved_at')
        .count<{ count: string | number }[]>('* as count')
        .first();
      if (Number(pending?.count ?? 0) >= MAX_PENDING_LICENSES_PER_USER) {
        const message = `Je hebt al ${MAX_PENDING_LICENSES_PER_USER} aanvragen in behandeling. Wacht tot een docent ze heeft bekeken.`;
        throw new HttpError(422, message, { errors: { license: [message] } });
      }
      await trx('licenses').insert({ user_id: user.id, description: input.description, license: input.license });
    });
    ctx.state.log.info({ userId: user.id }, 'licence requested');
    ctx.body = await ownLicenses(knex, user.id);
  });

  router.delete('/api/user/licenses/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayRequestLicenses(user)) throw forbidden();
    const { id } = parseInput(ctx, licenseIdParams, 'params');
    const license = await knex('licenses')
      .where('id', id)
      .first<{ id: number; user_id: number; approved_at: Date | null } | undefined>('id', 'user_id', 'approved_at');
    if (!license || !ownsLicense(user, license)) throw notFound(NOT_FOUND_MESSAGE);
    if (!mayWithdrawLicense(license)) {
      throw new HttpError(422, LICENSE_ALREADY_APPROVED_MESSAGE, { errors: { license: [LICENSE_ALREADY_APPROVED_MESSAGE] } });
    }
    // Only while still pending: an approval that lands in between wins.
    const removed = await knex('licenses').where({ id, user_id: user.id }).whereNull('approved_at').delete();
    if (removed === 0) {
      throw new HttpError(422, LICENSE_ALREADY_APPROVED_MESSAGE, { errors: { license: [LICENSE_ALREADY_APPROVED_MESSAGE] } });
    }
    ctx.state.log.info({ userId: user.id, licenseId: id }, 'licence request withdrawn');
    ctx.body = await ownLicenses(knex, user.id);
  });

  return router;
}
