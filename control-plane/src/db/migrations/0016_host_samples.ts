import type { Knex } from 'knex';

/**
 * The teachers' overview (/admin/overzicht, issue 22):
 *
 * - `host_samples`: one row per dev server per minute, what its agent's HostStats said (load,
 *   memory, disks, containers by state). Rows per host, not per container: 1,440 a day per dev
 *   server whatever the number of containers; kept 7 days (jobs/host-sampler.ts prunes them on
 *   the same timer). The key (host, minute) makes a second control plane's sample of the same
 *   minute a no-op instead of a duplicate.
 * - `idle_auto_stops`: one row per container the agent's idle auto-stop stopped (the agent keeps
 *   its record only while the container stays stopped); kept 31 days for the 30-day chart.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('host_samples', (table) => {
    table.string('host', 100).notNullable();
    table.timestamp('sampled_at', { useTz: true }).notNullable();
    table.smallint('cpu_cores').nullable();
    table.specificType('load_1m', 'real').nullable();
    table.bigInteger('memory_total_bytes').nullable();
    table.bigInteger('memory_available_bytes').nullable();
    // [{name, totalBytes, availableBytes}] of the mounts the agent measures (docker, agent).
    table.jsonb('disks').notNullable().defaultTo('[]');
    // Every container on the engine by Docker's state word; null when the engine did not answer.
    table.jsonb('containers').nullable();
    // The containers the agent manages (the students'), by state.
    table.jsonb('managed_containers').nullable();
    table.primary(['host', 'sampled_at']);
    table.index(['sampled_at']);
  });
  await knex.schema.createTable('idle_auto_stops', (table) => {
    table.string('host', 100).notNullable();
    table.string('container_id', 128).notNullable();
    table.string('container_name', 255).notNullable();
    table.integer('project_id').nullable();
    table.timestamp('stopped_at', { useTz: true }).notNullable();
    table.timestamp('last_activity_at', { useTz: true }).nullable();
    table.primary(['host', 'container_id', 'stopped_at']);
    table.index(['stopped_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idle_auto_stops');
  await knex.schema.dropTable('host_samples');
}
