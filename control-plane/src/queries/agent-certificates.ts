import type { Knex } from 'knex';

/**
 * The end of each active dev server's pinned certificate (migration 0014's cert_not_after, set
 * at the join and at each renewal). Links seeded from the configuration pin none: they are not
 * listed (their agent reports its own certificate).
 */
export async function activeAgentCertificateEnds(knex: Knex): Promise<Array<{ name: string; notAfter: Date }>> {
  const rows = await knex('agent_links')
    .where({ status: 'active' })
    .whereNotNull('cert_not_after')
    .orderBy('name')
    .select<Array<{ name: string; cert_not_after: Date | string }>>('name', 'cert_not_after');
  return rows.map((row) => ({ name: row.name, notAfter: new Date(row.cert_not_after) }));
}
