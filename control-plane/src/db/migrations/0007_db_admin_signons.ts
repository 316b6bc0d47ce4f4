import type { Knex } from 'knex';

/**
 * One-time sign-on tickets for the database administration tool (phpMyAdmin's signon mode):
 * the student's click makes a ticket for one of their databases, phpMyAdmin's signon script
 * redeems it server-to-server within a minute. Only the SHA-256 of the ticket is stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('db_admin_signons', (table) => {
    table.text('token_hash').primary();
    table.integer('database_id').notNullable().references('id').inTable('databases').onDelete('CASCADE').index();
    table.timestamp('expires_at', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('db_admin_signons');
}
