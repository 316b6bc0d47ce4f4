import type { Knex } from 'knex';

/** Accounts and how they are grouped: cohorts (groups), teams and team membership. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('groups', (table) => {
    table.increments('id');
    table.text('cohort').notNullable().unique();
  });

  await knex.schema.createTable('users', (table) => {
    table.increments('id');
    table.text('name').notNullable();
    table.text('name_slug').notNullable().index();
    // Stored lowercased (the check enforces it) so a plain unique index and equality lookups work.
    table.text('email').notNullable().unique();
    table.timestamp('email_verified_at', { useTz: true }).nullable();
    table.timestamp('disabled_at', { useTz: true }).nullable();
    table.boolean('admin').notNullable().defaultTo(false);
    table.boolean('developer').notNullable().defaultTo(false);
    table.integer('group_id').nullable().references('id').inTable('groups').onDelete('SET NULL').index();
    table.text('oidc_issuer').nullable();
    table.text('oidc_subject').nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['oidc_issuer', 'oidc_subject']);
    table.check('email = lower(email)', undefined, 'users_email_lowercase');
    table.check('(oidc_issuer is null) = (oidc_subject is null)', undefined, 'users_oidc_identity_complete');
  });

  await knex.schema.createTable('teams', (table) => {
    table.increments('id');
    table.text('name').notNullable();
  });

  await knex.schema.createTable('team_user', (table) => {
    table.integer('team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['team_id', 'user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('team_user');
  await knex.schema.dropTable('teams');
  await knex.schema.dropTable('users');
  await knex.schema.dropTable('groups');
}
