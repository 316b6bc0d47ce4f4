import { scheduleJob, type ScheduledJob } from '@devplein/server-kit/scheduled-job';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { toAgentError } from '../agent/agent-error.ts';
import { pruneOverviewRows, recordAutoStops, recordHostSample } from '../commands/record-host-sample.ts';

export interface HostSamplerDeps {
  knex: Knex;
  agents: AgentFleet;
  logger: Logger;
  now?: () => Date;
}

/** What one round did, per dev server name. */
export interface SampleRound {
  sampled: string[];
  /** Dev servers whose agent did not answer HostStats: no row for them this minute (a gap in the chart, never zeros). */
  failed: string[];
  autoStopsRecorded: number;
  pruned: { samples: number; autoStops: number };
}

/**
 * One round of the teachers' overview sampler: every dev server's HostStats (all at once, each
 * within the agent deadline) becomes one host_samples row, and the idle auto-stops its managed
 * containers still carry (the agent keeps that record while the container stays stopped) are
 * recorded, so a stop is counted even when the control plane missed its event. Then rows past
 * their retention go. An agent that does not answer is skipped, never recorded as zeros.
 */
export async function sampleHosts(deps: HostSamplerDeps): Promise<SampleRound> {
  const now = (deps.now ?? (() => new Date()))();
  const round: SampleRound = { sampled: [], failed: [], autoStopsRecorded: 0, pruned: { samples: 0, autoStops: 0 } };
  await Promise.all(
    deps.agents.links.map(async (link) => {
      try {
        const stats = await link.client.hostStats.getHostStats();
        await recordHostSample(deps.knex, link.name, stats, now);
        round.sampled.push(link.name);
      } catch (error) {
        round.failed.push(link.name);
        deps.logger.debug({ host: link.name, error: toAgentError(error, 'GetHostStats').message }, 'host sample skipped: the dev server does not answer');
        return;
      }
      try {
        const containers = await link.client.containers.listContainers({});
        round.autoStopsRecorded += await recordAutoStops(
          deps.knex,
          link.name,
          containers.flatMap((container) => (container.autoStop ? [{ containerId: container.id, containerName: container.name, projectId: container.projectId, autoStop: container.autoStop }] : [])),
        );
      } catch (error) {
        deps.logger.debug({ host: link.name, error: toAgentError(error, 'ListContainers').message }, 'auto-stops not read this round');
      }
    }),
  );
  round.pruned = await pruneOverviewRows(deps.knex, now);
  return round;
}

/** Runs sampleHosts on HOST_SAMPLE_CRON (every minute by default); stop() ends it. */
export function startHostSampler(deps: HostSamplerDeps, cronExpression: string): ScheduledJob {
  return scheduleJob({ name: 'host-sampler', expression: cronExpression, setting: 'HOST_SAMPLE_CRON', logger: deps.logger, run: () => sampleHosts(deps) });
}
