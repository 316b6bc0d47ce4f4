import type { Knex } from 'knex';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';

/**
 * The dev server of a student's databases and VPN configuration. They belong together: the VPN
 * configuration reaches that server's MariaDB only. So it is the server of the student's VPN
 * configuration or databases (null rows: the first one), and for a student who has neither yet,
 * the server new students go to (the one of SITE_DOMAIN).
 */
export async function userHomeHost(db: Knex | Knex.Transaction, agents: Pick<AgentFleet, 'link' | 'forNewUsers'>, userId: number): Promise<AgentLink> {
  const vpn = await db('vpn_configs').where({ user_id: userId }).first<{ host: string | null } | undefined>('host');
  if (vpn) return agents.link(vpn.host);
  const database = await db('databases').where({ user_id: userId }).orderBy('id').first<{ host: string | null } | undefined>('host');
  if (database) return agents.link(database.host);
  return agents.forNewUsers;
}
