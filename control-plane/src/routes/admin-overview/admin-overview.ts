import Router from '@koa/router';
import { SAMPLE_RESOLUTION_SECONDS } from '@devplein/contract/overview';
import { overviewAutoStops, overviewCohorts, overviewHosts, overviewTopContainers } from '@devplein/contract/http/admin-overview';
import { toAgentError } from '../../agent/agent-error.ts';
import type { ContainerStatsSweepView } from '../../agent/clients/container-stats.ts';
import { loadDockerProjects } from '../../queries/projects.ts';
import { presentTopContainers, presentTopContainersMissing, type TopProjectRow } from '../../presenters/present-top-containers.ts';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { presentAutoStopDays, presentCohortProjects, presentOverviewServer } from '../../presenters/present-overview.ts';
import { autoStopsPerDay, hostSamplesBetween, projectsPerCohort } from '../../queries/overview.ts';
import { handle } from '../handle.ts';

/**
 * The teachers' overview (/admin/overzicht, issue 22; contract/src/http/admin-overview.ts), admins
 * only, read from PostgreSQL (the samples jobs/host-sampler.ts keeps), so the page never waits on
 * an agent:
 *
 * - GET /api/admin/overview/hosts?hours=24 → per linked dev server its samples of the last hours
 *   (1-minute resolution) as chart columns and its containers by state at the latest sample.
 * - GET /api/admin/overview/auto-stops?days=30 → idle auto-stops per school day, zero days included.
 * - GET /api/admin/overview/cohorts → projects per cohort (approved and not).
 * - GET /api/admin/overview/top-containers → per dev server the 10 running containers using the
 *   most CPU and the most memory now, with their project and owner. The one route that asks the
 *   agents (ListContainerStats, all servers at once), so it is its own: the page refreshes it
 *   every 15 s while the charts stay on their minute samples, and a slow or unreachable agent
 *   only marks its server's lists unavailable instead of holding up the charts. The agent keeps
 *   one sweep for 15 s, so several teachers' pages cost it one.
 */
export function adminOverviewRoutes(deps: Pick<AppDeps, 'agents' | 'knex' | 'logger'>): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  handle(router, overviewHosts, async (_ctx, { query: { hours } }) => {
    const to = new Date();
    const from = new Date(to.getTime() - hours * 3_600_000);
    const links = deps.agents.links;
    const samples = await hostSamplesBetween(knex, links.map((link) => link.name), from, to);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      resolutionSeconds: SAMPLE_RESOLUTION_SECONDS,
      servers: links.map((link) => presentOverviewServer(link, samples.filter((sample) => sample.host === link.name))),
    };
  });

  handle(router, overviewAutoStops, async (_ctx, { query: { days } }) => {
    const { dates, counts } = await autoStopsPerDay(knex, days);
    return presentAutoStopDays(dates, counts);
  });

  handle(router, overviewCohorts, async () => ({ cohorts: presentCohortProjects(await projectsPerCohort(knex)) }));

  handle(router, overviewTopContainers, async () => {
    const links = deps.agents.links;
    const sweeps = await Promise.all(
      links.map(async (link): Promise<ContainerStatsSweepView | 'unavailable' | 'too-old'> => {
        try {
          return await link.client.containerStats.listContainerStats();
        } catch (error) {
          const failure = toAgentError(error, 'ListContainerStats');
          deps.logger.debug({ host: link.name, error: failure.message }, 'top containers: the dev server did not answer');
          return failure.code === 'UNIMPLEMENTED' ? 'too-old' : 'unavailable';
        }
      }),
    );
    const projectIds = [...new Set(sweeps.flatMap((sweep) => (typeof sweep === 'string' ? [] : sweep.containers.map((container) => container.projectId))))].filter((id) => id > 0);
    const rows = projectIds.length > 0 ? await loadDockerProjects(knex, (query) => void query.whereIn('p.id', projectIds)) : [];
    const projects = new Map<number, TopProjectRow>(rows.map((row) => [row.id, row]));
    return {
      servers: links.map((link, index) => {
        const sweep = sweeps[index];
        return sweep === undefined || typeof sweep === 'string'
          ? presentTopContainersMissing(link.name, sweep ?? 'unavailable')
          : presentTopContainers({ name: link.name, isDefault: index === 0 }, sweep, projects);
      }),
    };
  });

  return router;
}
