import type { Knex } from 'knex';

/**
 * One row per run of `devplein backup` on the control plane (the nightly timer or by hand): when
 * it ran, whether it worked, how big the archive is and where it went. The admin status page shows
 * the latest (queries/backups.ts). Agent hosts have no access to this database: their runs are in
 * their journal (journalctl -u devplein-backup).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('backup_runs', (table) => {
    table.increments('id');
    table.string('role', 20).notNullable().defaultTo('control-plane');
    table.timestamp('started_at', { useTz: true }).notNullable();
    table.timestamp('finished_at', { useTz: true }).notNullable();
    table.boolean('ok').notNullable();
    table.bigInteger('size_bytes').nullable();
    table.text('archive_path').nullable();
    table.text('message').nullable();
    table.index(['finished_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('backup_runs');
}
