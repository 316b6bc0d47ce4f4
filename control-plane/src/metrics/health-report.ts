import type { Knex } from 'knex';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { HealthJson } from '@devplein/contract/http/health';
import type { HealthReport } from './metrics-server.ts';

/**
 * GET /healthz (the app's and the metrics listener's): healthy while the database answers; an
 * unreachable agent degrades, it does not make the control plane unhealthy. `agent` is the first
 * dev server's link (as before there were more); `hosts` has every dev server's.
 */
export async function controlPlaneHealth(deps: { knex: Knex; agents: Pick<AgentFleet, 'links'> }): Promise<HealthReport & { body: HealthJson }> {
  let database: HealthJson['database'] = 'up';
  try {
    await deps.knex.raw('select 1');
  } catch {
    database = 'down';
  }
  const hosts = deps.agents.links.map((link) => {
    const status = link.client.status();
    return { name: link.name, state: status.state, since: status.since };
  });
  const healthy = database === 'up';
  const allReachable = hosts.every((host) => host.state === 'reachable');
  const first = hosts[0];
  return {
    healthy,
    body: {
      status: healthy ? (allReachable ? 'ok' : 'degraded') : 'down',
      database,
      agent: first ? { state: first.state, since: first.since } : null,
      hosts,
    },
  };
}
