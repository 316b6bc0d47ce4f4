import type { Knex } from 'knex';

/**
 * The websites wall (GET /api/sites) is kept in memory between requests, like the identity cache
 * of migration 0011: every write to what the wall shows announces `w` on the same channel, inside
 * the writing transaction (channel `devplein_identity`, 0011's statement notice function). Projects (name, domain, visible, validated), their members and order,
 * and the thumbnails; a member's name or cohort comes with 0011's `u:` notices.
 */
const tables = ['projects', 'project_user', 'thumbnails'];

export async function up(knex: Knex): Promise<void> {
  for (const table of tables) {
    await knex.raw(
      `create trigger devplein_site_wall_notice after insert or update or delete or truncate on ${table}
       for each statement execute function devplein_identity_statement_notice('w')`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of tables) await knex.raw(`drop trigger if exists devplein_site_wall_notice on ${table}`);
}
