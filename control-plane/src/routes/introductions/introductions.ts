import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { HttpError, notFound } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { authorizeIntroduceeManagement } from '../../policies/introducee-policy.ts';
import { presentIntroducee, type IntroduceeJson, type IntroduceeRow } from '../../presenters/present-introducee.ts';
import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';
import { introduceeIdParams, newIntroduceeBody } from './schema.ts';

/** 20 characters of base64url: 120 random bits, and safe to type or paste anywhere. */
export function generateGitPassword(): string {
  return randomBytes(15).toString('base64url');
}

const nameTaken = (message: string): HttpError => new HttpError(422, message, { errors: { name: [message] } });

const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

/** Routes of introducees, 'meelopers' (/api/admin/introduction): admins only. */
export function introductionRoutes(deps: AppDeps): AppRouter {
  const { knex, secrets, config } = deps;
  const router: AppRouter = new Router();

  /** Every introducee by name, passwords opened for the admin. */
  async function listIntroducees(log: Logger): Promise<IntroduceeJson[]> {
    const rows = await knex('introducees')
      .select<(IntroduceeRow & { password_encrypted: string })[]>('id', 'name', 'password_encrypted', 'created_at')
      .orderBy('name');
    return rows.map((row) => {
      let password = '';
      try {
        password = secrets.open(row.password_encrypted);
      } catch {
        // A changed ENCRYPTION_KEY: the list still loads; the admin can delete and recreate this one.
        log.warn({ introduceeId: row.id }, 'introducee password cannot be opened (encryption key changed?)');
      }
      return presentIntroducee(row, config.SITE_DOMAIN, password);
    });
  }

  router.get('/api/admin/introduction', async (ctx) => {
    authorizeIntroduceeManagement(activeUser(ctx));
    ctx.body = await listIntroducees(ctx.state.log);
  });

  router.post('/api/admin/introduction', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeIntroduceeManagement(admin);
    const { name } = parseInput(ctx, newIntroduceeBody, 'body');
    const gitUsername = introduceeGitUsername(name);
    try {
      await knex.transaction(async (trx) => {
        // Serialize creations, so the two uniqueness checks below cannot race each other.
        await trx.raw('LOCK TABLE introducees IN SHARE ROW EXCLUSIVE MODE');
        const sameName = await trx('introducees').where('name', name).first('id');
        if (sameName) throw nameTaken(`Een meeloper met de naam "${name}" bestaat al.`);
        // Two names differing only in their first three characters would share one git user.
        const sameGitUser = await trx('introducees').whereRaw('substr(name, 4) = ?', [gitUsername]).first('name');
        if (sameGitUser) throw nameTaken(`De gitgebruikersnaam "${gitUsername}" bestaat al (meeloper "${String(sameGitUser.name)}").`);
        const [created] = await trx('introducees')
          .insert({ name, password_encrypted: secrets.seal(generateGitPassword()) })
          .returning<{ id: number }[]>('id');
        if (!created) throw new Error('insert returned no id');
        // Never the password: the audit log is readable by every admin, forever.
        await recordAudit(trx, {
          actorId: admin.id,
          action: 'introducee.create',
          subjectType: 'introducee',
          subjectId: created.id,
          after: { name, domain: `${name}.${config.SITE_DOMAIN}`, git_username: gitUsername },
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(`Een meeloper met de naam "${name}" bestaat al.`);
      throw error;
    }
    ctx.state.log.info({ introducee: name }, 'introducee created');
    ctx.body = await listIntroducees(ctx.state.log);
  });

  router.delete('/api/admin/introduction/:id', async (ctx) => {
    const admin = activeUser(ctx);
    authorizeIntroduceeManagement(admin);
    const { id } = parseInput(ctx, introduceeIdParams, 'params');
    await knex.transaction(async (trx) => {
      const existing = await trx('introducees').where('id', id).forUpdate().first<{ id: number; name: string } | undefined>('id', 'name');
      if (!existing) throw notFound('Deze meeloper bestaat niet.');
      await trx('introducees').where('id', id).delete();
      await recordAudit(trx, {
        actorId: admin.id,
        action: 'introducee.delete',
        subjectType: 'introducee',
        subjectId: id,
        before: { name: existing.name, domain: `${existing.name}.${config.SITE_DOMAIN}`, git_username: introduceeGitUsername(existing.name) },
      });
    });
    ctx.state.log.info({ introduceeId: id }, 'introducee deleted');
    ctx.body = await listIntroducees(ctx.state.log);
  });

  return router;
}
