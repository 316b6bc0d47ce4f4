import type { Knex } from 'knex';

/** Student projects ("dockers"), the image options they run on, members and site thumbnails. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('docker_images', (table) => {
    table.increments('id');
    table.text('name').notNullable();
    table.text('image').notNullable();
    table.boolean('ssh').notNullable().defaultTo(true);
    table.boolean('wordpress').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('projects', (table) => {
    table.increments('id');
    // The container name: unique on the host.
    table.text('name').notNullable().unique();
    table.text('description').notNullable().defaultTo('');
    table.text('domain').notNullable().unique();
    table.boolean('visible').notNullable().defaultTo(false);
    // Git clone address (the spec's field name).
    table.text('repro').nullable();
    table.date('end_date').nullable();
    table
      .integer('docker_image_id')
      .nullable()
      .references('id')
      .inTable('docker_images')
      .onDelete('SET NULL')
      .index();
    // null = awaiting approval, true = approved, false = rejected.
    table.boolean('validated').nullable();
    table.integer('created_by').nullable().references('id').inTable('users').onDelete('SET NULL').index();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check('domain = lower(domain)', undefined, 'projects_domain_lowercase');
  });
  // The approval queue is read often and is small: a partial index keeps it cheap.
  await knex.raw('create index projects_awaiting_approval_index on projects (id) where validated is null');

  await knex.schema.createTable('project_user', (table) => {
    table.integer('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    // Order of members as entered (the spec's search looks at the first six).
    table.integer('position').notNullable().defaultTo(0);
    table.primary(['project_id', 'user_id']);
  });

  await knex.schema.createTable('thumbnails', (table) => {
    table.increments('id');
    table.integer('project_id').notNullable().unique().references('id').inTable('projects').onDelete('CASCADE');
    table.binary('png').nullable();
    table.text('etag').nullable();
    table.timestamp('captured_at', { useTz: true }).nullable();
    table.text('last_error').nullable();
    table.timestamp('last_attempt_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('thumbnails');
  await knex.schema.dropTable('project_user');
  await knex.schema.dropTable('projects');
  await knex.schema.dropTable('docker_images');
}
