import type { Knex } from 'knex';

/** What a student owns besides projects: SSH keys, databases, a VPN peer, licences; and introducees. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ssh_keys', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    table.text('name').notNullable();
    table.text('public_key').notNullable();
    // SHA256 fingerprint; one key belongs to one account.
    table.text('fingerprint').notNullable().unique();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('databases', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    table.text('name').notNullable().unique();
    table.text('db_user').notNullable();
    table.text('password_encrypted').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('vpn_configs', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().unique().references('id').inTable('users').onDelete('CASCADE');
    table.uuid('identifier').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    // Tunnel address of the peer, e.g. 10.8.0.12/32.
    table.text('address').notNullable().unique();
    table.text('public_key').notNullable().unique();
    table.text('private_key_encrypted').nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('licenses', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    table.text('description').notNullable();
    table.text('license').notNullable();
    table.timestamp('approved_at', { useTz: true }).nullable();
    table.integer('approved_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('introducees', (table) => {
    table.increments('id');
    table.text('name').notNullable().unique();
    table.text('password_encrypted').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('introducees');
  await knex.schema.dropTable('licenses');
  await knex.schema.dropTable('vpn_configs');
  await knex.schema.dropTable('databases');
  await knex.schema.dropTable('ssh_keys');
}
