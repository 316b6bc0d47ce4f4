import type { Knex } from 'knex';

/**
 * The set every container had before capabilities were set per image option: Docker's default
 * set minus NET_RAW, MKNOD and SETFCAP. Written out here, not imported, so this migration keeps
 * doing what it did when the allow-list changes later.
 */
const PREVIOUS_SET = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'AUDIT_WRITE'];

/**
 * The Linux capabilities an image option's containers get back after dropping ALL (issue 16).
 * Existing options (and rows inserted without the column) get the previous set: their images
 * were never measured, and any of these may be what one of them needs (OpenSSH chroots and
 * writes audit records, Apache switches user, entrypoints chown their files), so a narrower
 * default could break a site at its next recreate. None of them is dangerous the way the
 * dropped ones are (raw sockets, device nodes, file capabilities) or the ones Docker never
 * grants (SYS_ADMIN, NET_ADMIN, ...). Admins narrow each option on the images page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('docker_images', (table) => {
    table.specificType('capabilities', 'text[]').notNullable().defaultTo(knex.raw(`'{${PREVIOUS_SET.join(',')}}'::text[]`));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('docker_images', (table) => {
    table.dropColumn('capabilities');
  });
}
