import Router from '@koa/router';
import { SAMPLE_RESOLUTION_SECONDS, type OverviewAutoStopsJson, type OverviewCohortsJson, type OverviewHostsJson } from '@devplein/contract/overview';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden } from '../../errors.ts';
import { mayViewOverview } from '../../policies/overview-policy.ts';
import { presentAutoStopDays, presentCohortProjects, presentOverviewServer } from '../../presenters/present-overview.ts';
import { autoStopsPerDay, hostSamplesBetween, projectsPerCohort } from '../../queries/overview.ts';
import { autoStopsQuery, hostsQuery } from './schema.ts';

/**
 * The teachers' overview (/admin/overzicht, issue 22), admins only, read from PostgreSQL (the
 * samples jobs/host-sampler.ts keeps), so the page never waits on an agent:
 *
 * - GET /api/admin/overview/hosts?hours=24 → per linked dev server its samples of the last hours
 *   (1-minute resolution) as chart columns and its containers by state at the latest sample.
 * - GET /api/admin/overview/auto-stops?days=30 → idle auto-stops per school day, zero days included.
 * - GET /api/admin/overview/cohorts → projects per cohort (approved and not).
 */
export function adminOverviewRoutes(deps: Pick<AppDeps, 'agents' | 'knex'>): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.get('/api/admin/overview/hosts', async (ctx) => {
    if (!mayViewOverview(activeUser(ctx))) throw forbidden();
    const { hours } = parseInput(ctx, hostsQuery, 'query');
    const to = new Date();
    const from = new Date(to.getTime() - hours * 3_600_000);
    const links = deps.agents.links;
    const samples = await hostSamplesBetween(knex, links.map((link) => link.name), from, to);
    const body: OverviewHostsJson = {
      from: from.toISOString(),
      to: to.toISOString(),
      resolutionSeconds: SAMPLE_RESOLUTION_SECONDS,
      servers: links.map((link) => presentOverviewServer(link, samples.filter((sample) => sample.host === link.name))),
    };
    ctx.body = body;
  });

  router.get('/api/admin/overview/auto-stops', async (ctx) => {
    if (!mayViewOverview(activeUser(ctx))) throw forbidden();
    const { days } = parseInput(ctx, autoStopsQuery, 'query');
    const { dates, counts } = await autoStopsPerDay(knex, days);
    const body: OverviewAutoStopsJson = presentAutoStopDays(dates, counts);
    ctx.body = body;
  });

  router.get('/api/admin/overview/cohorts', async (ctx) => {
    if (!mayViewOverview(activeUser(ctx))) throw forbidden();
    const body: OverviewCohortsJson = { cohorts: presentCohortProjects(await projectsPerCohort(knex)) };
    ctx.body = body;
  });

  return router;
}
