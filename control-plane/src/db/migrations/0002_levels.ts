import type { Knex } from 'knex';

/** The curriculum: level categories, level content with courses/texts/files, per-student levels. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('level_categories', (table) => {
    table.increments('id');
    table.text('title').notNullable();
    // How many levels the category has (tiles 1..number).
    table.integer('number').notNullable();
    table.boolean('icons').notNullable().defaultTo(false);
    table.check('"number" >= 0', undefined, 'level_categories_number_not_negative');
  });

  await knex.schema.createTable('level_contents', (table) => {
    table.increments('id');
    table.text('title').notNullable();
    table.text('title_for_teachers').nullable();
    table
      .integer('level_category_id')
      .notNullable()
      .references('id')
      .inTable('level_categories')
      .onDelete('CASCADE')
      .index();
  });

  await knex.schema.createTable('courses', (table) => {
    table.increments('id');
    table
      .integer('level_content_id')
      .notNullable()
      .references('id')
      .inTable('level_contents')
      .onDelete('CASCADE')
      .index();
    table.text('title').notNullable();
    table.integer('position').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('course_texts', (table) => {
    table.increments('id');
    table.integer('course_id').notNullable().references('id').inTable('courses').onDelete('CASCADE').index();
    table.text('title').notNullable();
    table.text('body').notNullable().defaultTo('');
    table.integer('position').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('course_files', (table) => {
    table.increments('id');
    table.integer('course_id').notNullable().references('id').inTable('courses').onDelete('CASCADE').index();
    table.text('title').notNullable();
    // What kind of file it is, as shown to students (e.g. 'PDF', 'ZIP').
    table.text('type').notNullable();
    table.text('filename').notNullable();
    table.text('storage_key').notNullable().unique();
    table.bigInteger('size').notNullable().defaultTo(0);
    table.integer('position').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('levels', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table
      .integer('level_category_id')
      .notNullable()
      .references('id')
      .inTable('level_categories')
      .onDelete('CASCADE')
      .index();
    table
      .integer('level_content_id')
      .nullable()
      .references('id')
      .inTable('level_contents')
      .onDelete('SET NULL')
      .index();
    table.integer('number').notNullable();
    table.text('status').notNullable().defaultTo('locked');
    // Leading user_id makes this the index for "all levels of a student" as well.
    table.unique(['user_id', 'level_category_id', 'number']);
    table.check(`"status" in ('locked', 'open', 'success')`, undefined, 'levels_status_known');
    table.check('"number" >= 1', undefined, 'levels_number_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('levels');
  await knex.schema.dropTable('course_files');
  await knex.schema.dropTable('course_texts');
  await knex.schema.dropTable('courses');
  await knex.schema.dropTable('level_contents');
  await knex.schema.dropTable('level_categories');
}
