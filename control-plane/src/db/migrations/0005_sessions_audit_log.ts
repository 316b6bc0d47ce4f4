import type { Knex } from 'knex';

/** Server-side sessions (so disabling a user ends them everywhere) and the audit log. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sessions', (table) => {
    table.text('id').primary();
    table.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE').index();
    table.jsonb('data').notNullable().defaultTo('{}');
    table.timestamp('expires_at', { useTz: true }).notNullable().index();
  });

  await knex.schema.createTable('audit_log', (table) => {
    table.increments('id');
    table.integer('actor_id').nullable().references('id').inTable('users').onDelete('SET NULL').index();
    // What happened, e.g. 'project.approve', 'user.disable'.
    table.text('action').notNullable();
    // What it happened to, e.g. ('project', '12'); text so non-numeric keys fit too.
    table.text('subject_type').nullable();
    table.text('subject_id').nullable();
    table.jsonb('before').nullable();
    table.jsonb('after').nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).index();
    table.index(['subject_type', 'subject_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
  await knex.schema.dropTable('sessions');
}
