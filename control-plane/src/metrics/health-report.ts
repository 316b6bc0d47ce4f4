import type { Knex } from 'knex';
import type { AgentClient } from '../agent/agent-client.ts';
import type { HealthReport } from './metrics-server.ts';

/**
 * The same answer as the app's GET /healthz (routes/health): healthy while the database
 * answers; an unreachable agent degrades, it does not make the control plane unhealthy.
 */
export async function controlPlaneHealth(deps: { knex: Knex; agent: Pick<AgentClient, 'status'> }): Promise<HealthReport> {
  let database: 'up' | 'down' = 'up';
  try {
    await deps.knex.raw('select 1');
  } catch {
    database = 'down';
  }
  const agent = deps.agent.status();
  const healthy = database === 'up';
  return {
    healthy,
    body: {
      status: healthy ? (agent.state === 'reachable' ? 'ok' : 'degraded') : 'down',
      database,
      agent: { state: agent.state, since: agent.since },
    },
  };
}
