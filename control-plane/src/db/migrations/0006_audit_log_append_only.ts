import type { Knex } from 'knex';

/**
 * Makes audit_log append-only in the database itself, so no code path (nor a stray SQL session of
 * the application role) can rewrite or erase history: UPDATE, DELETE and TRUNCATE raise.
 *
 * The one exception is the foreign key's own ON DELETE SET NULL on actor_id: deleting a user turns
 * into an UPDATE of their entries. That UPDATE is allowed only when it changes nothing but
 * actor_id to NULL AND the old actor no longer exists in users — i.e. exactly what the foreign
 * key does. We keep the FK (rather than dropping it or restricting user deletes) because removing
 * an account must stay possible while its trail remains; the entry keeps who it was about in
 * subject_type/subject_id and its before/after snapshots.
 *
 * Plain PL/pgSQL triggers: they run the same on PostgreSQL 15 and PGlite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and old.actor_id is not null
        and new.actor_id is null
        and new.id = old.id
        and new.action = old.action
        and new.subject_type is not distinct from old.subject_type
        and new.subject_id is not distinct from old.subject_id
        and new.before is not distinct from old.before
        and new.after is not distinct from old.after
        and new.created_at = old.created_at
        and not exists (select 1 from users where users.id = old.actor_id)
      then
        return new;
      end if;
      raise exception 'audit_log is append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
    end
    $$
  `);
  await knex.raw(`
    create trigger audit_log_no_update_or_delete
      before update or delete on audit_log
      for each row execute function audit_log_append_only()
  `);
  await knex.raw(`
    create trigger audit_log_no_truncate
      before truncate on audit_log
      for each statement execute function audit_log_append_only()
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists audit_log_no_truncate on audit_log');
  await knex.raw('drop trigger if exists audit_log_no_update_or_delete on audit_log');
  await knex.raw('drop function if exists audit_log_append_only()');
}
