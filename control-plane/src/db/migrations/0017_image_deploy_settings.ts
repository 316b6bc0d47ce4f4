import type { Knex } from 'knex';

/**
 * Where a git deploy puts a project's code, per image option (issue 23): the web root in the
 * container (null: git deploy not offered), a command after each update, the paths an update
 * keeps, and an optional build step (command + output folder). Existing options get what their
 * kind is known to use: the static busybox image serves /www; a WordPress option serves
 * /var/www/html and keeps its uploads and configuration. Every other option stays without
 * (an admin sets it on the images page). Written out here, not imported, so this migration keeps
 * doing what it did.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('docker_images', (table) => {
    table.string('deploy_web_root', 200).nullable();
    table.string('deploy_after_update', 500).nullable();
    table.specificType('deploy_keep_paths', 'text[]').notNullable().defaultTo(knex.raw(`'{}'::text[]`));
    table.string('deploy_build_command', 500).nullable();
    table.string('deploy_build_output', 200).nullable();
  });
  await knex('docker_images').where('image', 'like', 'devplein/static:%').update({ deploy_web_root: '/www' });
  await knex('docker_images')
    .where({ wordpress: true })
    .update({ deploy_web_root: '/var/www/html', deploy_keep_paths: knex.raw(`'{wp-content/uploads,wp-config.php,.env}'::text[]`) });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('docker_images', (table) => {
    table.dropColumns('deploy_web_root', 'deploy_after_update', 'deploy_keep_paths', 'deploy_build_command', 'deploy_build_output');
  });
}
