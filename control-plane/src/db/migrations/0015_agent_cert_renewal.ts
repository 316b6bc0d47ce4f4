import type { Knex } from 'knex';

/**
 * A joined dev server renews its certificate itself (issue 21, POST /api/agents/renew): the new
 * certificate's fingerprint becomes `cert_fingerprint`, the one it renewed from is kept in
 * `previous_cert_fingerprint` and stays accepted until that certificate's own end (at most the
 * 30 days before it that renewal starts) or the next renewal. So the agent is never locked out
 * when the answer is lost or its restart onto the new certificate fails; a revoke or a new
 * invitation clears both. The trigger of migration 0014 announces these updates too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_links', (table) => {
    table.string('previous_cert_fingerprint', 64).nullable();
    table.timestamp('renewed_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_links', (table) => {
    table.dropColumn('previous_cert_fingerprint');
    table.dropColumn('renewed_at');
  });
}
