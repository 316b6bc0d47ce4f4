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
  // Each dev server hands out addresses from its own WireGuard pool: an address is unique per
  // server, not overall (two servers with the same pool both start at .2). Null and the first
  // link's name are the same server to the product but not to this index; the agent itself
  // never hands out an address twice.
  await knex.schema.alterTable('vpn_configs', (builder) => {
    builder.dropUnique(['address']);
  });
  await knex.raw("create unique index vpn_configs_host_address_unique on vpn_configs ((coalesce(host, '')), address)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index vpn_configs_host_address_unique');
  await knex.schema.alterTable('vpn_configs', (builder) => {
    builder.unique(['address']);
  });
  for (const table of placedTables) {
    await knex.schema.alterTable(table, (builder) => {
      builder.dropColumn('host');
    });
  }
}
