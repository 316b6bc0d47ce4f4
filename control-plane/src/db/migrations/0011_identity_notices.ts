import type { Knex } from 'knex';

/**
 * The database announces every write that changes what a signed-in request sees (issue 19): the
 * identity cache of each control-plane process LISTENs on `devplein_identity` and drops what a
 * notice names. A trigger cannot be forgotten by a new command or a hand-written UPDATE, and its
 * NOTIFY is part of the writing transaction: delivered when it commits, never when it rolls back.
 * Payloads: `u:{user id}` (user row, team membership), `u:*` (a group or team itself changed),
 * `s:{session id}`, `l:{user id}` (per-student levels), `c` (level categories), `*` (truncate).
 */
const CHANNEL = 'devplein_identity';

/** Row trigger: NOTIFY `{prefix}:{column}` for the old and the new row. */
const rowTables: Array<{ table: string; prefix: string; column: string }> = [
  { table: 'users', prefix: 'u', column: 'id' },
  { table: 'team_user', prefix: 'u', column: 'user_id' },
  { table: 'sessions', prefix: 's', column: 'id' },
  { table: 'levels', prefix: 'l', column: 'user_id' },
];

/** Statement trigger: one fixed NOTIFY per statement. */
const statementTables: Array<{ table: string; payload: string; events: string }> = [
  { table: 'groups', payload: 'u:*', events: 'update or delete' },
  { table: 'teams', payload: 'u:*', events: 'update or delete' },
  { table: 'level_categories', payload: 'c', events: 'insert or update or delete' },
];

const allTables = [...rowTables.map((entry) => entry.table), ...statementTables.map((entry) => entry.table)];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function devplein_identity_row_notice() returns trigger language plpgsql as $$
    declare
      value text;
    begin
      if tg_op <> 'INSERT' then
        value := to_jsonb(old) ->> tg_argv[1];
        if value is not null then perform pg_notify('${CHANNEL}', tg_argv[0] || ':' || value); end if;
      end if;
      if tg_op <> 'DELETE' then
        value := to_jsonb(new) ->> tg_argv[1];
        if value is not null then perform pg_notify('${CHANNEL}', tg_argv[0] || ':' || value); end if;
      end if;
      return null;
    end $$`);
  await knex.raw(`
    create function devplein_identity_statement_notice() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${CHANNEL}', tg_argv[0]);
      return null;
    end $$`);
  for (const { table, prefix, column } of rowTables) {
    await knex.raw(
      `create trigger devplein_identity_notice after insert or update or delete on ${table}
       for each row execute function devplein_identity_row_notice('${prefix}', '${column}')`,
    );
  }
  for (const { table, payload, events } of statementTables) {
    await knex.raw(
      `create trigger devplein_identity_notice after ${events} on ${table}
       for each statement execute function devplein_identity_statement_notice('${payload}')`,
    );
  }
  for (const table of allTables) {
    await knex.raw(
      `create trigger devplein_identity_truncate_notice after truncate on ${table}
       for each statement execute function devplein_identity_statement_notice('*')`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of allTables) {
    await knex.raw(`drop trigger if exists devplein_identity_truncate_notice on ${table}`);
    await knex.raw(`drop trigger if exists devplein_identity_notice on ${table}`);
  }
  await knex.raw('drop function if exists devplein_identity_statement_notice()');
  await knex.raw('drop function if exists devplein_identity_row_notice()');
}
