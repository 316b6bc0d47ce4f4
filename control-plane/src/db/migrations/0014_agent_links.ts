import type { Knex } from 'knex';

/**
 * Every dev server's agent link in PostgreSQL (issue 21): seeded from AGENT_LINKS_FILE /
 * AGENT_ADDRESS at start, or made by an invitation that a new dev server redeems
 * (`install.sh agent --join`). A joined link pins its certificate's sha256 fingerprint; a
 * revoked link stays as a record (who, when) and is dropped from the fleet.
 *
 * Statuses: `invited` (a join token is out, no certificate yet), `active`, `revoked`.
 * Every write announces `a` on the identity channel (migration 0011's statement notice
 * function), so each control plane reloads its fleet, also after a `devplein agent revoke`
 * from another process.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_links', (table) => {
    table.increments('id').primary();
    table.string('name', 31).notNullable().unique();
    table.string('address', 300).notNullable();
    table.string('server_name', 300).nullable();
    table.string('site_domain', 200).notNullable();
    table.string('student_db_host', 300).nullable();
    table.integer('student_db_port').nullable();
    table.string('db_admin_url', 500).nullable();
    /** sha256 of the agent's certificate (DER), lowercase hex; null: not pinned (a seeded link). */
    table.string('cert_fingerprint', 64).nullable();
    table.timestamp('cert_not_after', { useTz: true }).nullable();
    table.string('status', 16).notNullable().defaultTo('active');
    /** 'config' (seeded from the links file or AGENT_ADDRESS) or 'join'. */
    table.string('origin', 16).notNullable().defaultTo('config');
    table.integer('created_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('joined_at', { useTz: true }).nullable();
    table.integer('revoked_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    table.timestamp('revoked_at', { useTz: true }).nullable();
  });
  await knex.raw(`alter table agent_links add constraint agent_links_status check (status in ('invited', 'active', 'revoked'))`);
  await knex.schema.createTable('agent_join_tokens', (table) => {
    table.increments('id').primary();
    table.integer('agent_link_id').notNullable().references('id').inTable('agent_links').onDelete('CASCADE');
    /** sha256 of the token (hex): the token itself is shown once and never stored. */
    table.string('token_hash', 64).notNullable().unique();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('used_at', { useTz: true }).nullable();
    table.integer('created_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `create trigger devplein_agent_links_notice after insert or update or delete or truncate on agent_links
     for each statement execute function devplein_identity_statement_notice('a')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('agent_join_tokens');
  await knex.schema.dropTableIfExists('agent_links');
}
