import type { Knex } from 'knex';

/**
 * What the control plane still has to make the dev servers do about someone's access, because
 * an agent did not answer (or cannot do it yet). One row per user (their databases, VPN peer,
 * SSH keys and sessions, containers — recomputed from their flags on every attempt) or per
 * project (its container's keys, and the SSH sessions of members who left it). The row is
 * written before the agents are called and deleted once everything is done; the retry job
 * works through what is left. Rows go with their user or project.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pending_host_access', (table) => {
    table.increments('id').primary();
    table.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE').unique();
    table.integer('project_id').nullable().references('id').inTable('projects').onDelete('CASCADE').unique();
    /** Project rows: ids of former members whose SSH sessions in its container must still end. */
    table.jsonb('end_sessions_of').notNullable().defaultTo('[]');
    /** User rows: the revocation also stops the containers of projects where they are the only member. */
    table.boolean('stop_sole_containers').notNullable().defaultTo(false);
    /** What asked for it, e.g. 'user.disable', 'project.members'. */
    table.string('reason', 64).notNullable();
    /** Raised by every new request, so a run only clears the row it read. */
    table.integer('revision').notNullable().defaultTo(1);
    table.integer('attempts').notNullable().defaultTo(0);
    /** Dutch summary of what is not done yet (what the admin was told). */
    table.text('not_done').nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table pending_host_access add constraint pending_host_access_one_subject check ((user_id is null) <> (project_id is null))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pending_host_access');
}
