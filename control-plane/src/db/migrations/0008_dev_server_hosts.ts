import type { Knex } from 'knex';

/** The tables whose rows live on one dev server. */
const placedTables = ['projects', 'databases', 'vpn_configs'] as const;

/**
 * Which dev server (agent link, by its name in the control plane's configuration) holds a
 * project's container and route, a student database, a VPN peer. Null is the first configured
 * link: every row made before there was a second dev server.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of placedTables) {
    await knex.schema.alterTable(table, (builder) => {
      builder.string('host', 31).nullable().index();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of placedTables) {
    await knex.schema.alterTable(table, (builder) => {
      builder.dropColumn('host');
    });
  }
}
