import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { exportGroupLevels, exportUsers } from '@devplein/contract/http/admin-exports';
import { notFound } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { adminUserRows } from '../../queries/users.ts';
import { loadCategories, loadGroupStudentLevels } from '../../queries/levels.ts';
import { findGroup } from '../../queries/groups.ts';
import { presentCsv, type CsvCell } from '../../presenters/present-csv.ts';
import { attachmentDisposition } from '../levels/content-type.ts';
import { handle } from '../handle.ts';

/** The words the levels table shows for each status (spec §2, Levels per student). */
const STATUS_WORDS = { locked: 'Locked', open: 'Open', success: 'Success' } as const;

/** Dates as a Dutch school reads them and a spreadsheet sorts them: 2026-11-27 15:04. */
const schoolTime = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Amsterdam', dateStyle: 'short', timeStyle: 'short' });
const when = (value: Date | string | null): string | null => (value === null ? null : schoolTime.format(new Date(value)));

/**
 * Spreadsheets for teachers (issue 22; contract/src/http/admin-exports.ts), admins only, each download audited (who took which
 * personal data, when):
 * - GET /api/admin/exports/users.csv: every user as the users admin lists them (name, e-mail,
 *   cohort, activated, disabled, developer); audit `export.users`.
 * - GET /api/admin/exports/levels/{groupId}.csv: the levels per student of one group, one row per
 *   student and one column per level of every category, the status as the table shows it (empty:
 *   no level record); audit `export.levels` with the group. Unknown group: 404.
 * The format is presentCsv's: Excel in a Dutch locale opens it with a double click.
 */
export function adminExportRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  handle(router, exportUsers, async (ctx, { caller: actor }) => {
    const rows = await adminUserRows(knex);
    await recordAudit(knex, { actorId: actor.id, action: 'export.users', subjectType: 'users', subjectId: 'all', after: { aantal_regels: rows.length } });
    const header = ['Naam', 'E-mailadres', 'Klas', 'Geactiveerd op', 'Uitgeschakeld op', 'Ontwikkelaar'];
    const cells = rows.map((row): CsvCell[] => [row.name, row.email, row.cohort, when(row.email_verified_at), when(row.disabled_at), row.developer ? 'ja' : 'nee']);
    sendCsv(ctx, `gebruikers-${today()}.csv`, presentCsv(header, cells));
  });

  handle(router, exportGroupLevels, async (ctx, { caller: actor, params: { groupId } }) => {
    const group = await findGroup(knex, groupId);
    const students = group && (await loadGroupStudentLevels(knex, groupId));
    if (!group || !students) throw notFound('Deze groep bestaat niet.');
    const categories = await loadCategories(knex);
    await recordAudit(knex, { actorId: actor.id, action: 'export.levels', subjectType: 'group', subjectId: groupId, after: { cohort: group.cohort, aantal_regels: students.length } });
    const columns = categories.flatMap((category) => Array.from({ length: category.number }, (_, index) => ({ category, number: index + 1 })));
    const header = ['Naam', 'E-mailadres', ...columns.map(({ category, number }) => `${category.title} ${number}`)];
    const cells = students.map(({ user, levels }): CsvCell[] => {
      const status = new Map(levels.map((level) => [`${level.level_category_id}:${level.number}`, STATUS_WORDS[level.status]]));
      return [user.name, user.email, ...columns.map(({ category, number }) => status.get(`${category.id}:${number}`) ?? null)];
    });
    sendCsv(ctx, `levels-${group.cohort}-${today()}.csv`, presentCsv(header, cells));
  });

  return router;
}

function sendCsv(ctx: AppContext, filename: string, body: string): void {
  ctx.set('Content-Disposition', attachmentDisposition(filename));
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = body;
}

const today = (): string => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Amsterdam' }).format(new Date());
