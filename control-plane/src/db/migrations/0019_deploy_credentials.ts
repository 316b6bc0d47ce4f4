import type { Knex } from 'knex';
import { credentialAddressOf } from '../../lib/git-credential.ts';

/**
 * Trust, part 3 (issue 35): git credentials and webhook deliveries.
 *
 * `project_git_tokens`: a project's HTTPS token (sealed with the secret box), now bound to the
 * member who stored it (`user_id`; the token goes with their account) and to the address it was
 * entered for (`address`, lib/git-credential.ts). It replaces `projects.git_token_sealed`: a
 * token already stored moves here with the current repository as its address and, as its owner,
 * the member who last entered a token (the audit trail's `project.deploy-settings` with
 * `tokenReplaced`) when they are still an active member; a token nobody can be named for is
 * dropped (the card then asks for it again).
 *
 * `projects.webhook_secret_notice`/`_since`: why the webhook secret was renewed without the
 * members asking ('member-left'); the card shows a banner until a delivery is signed with it.
 *
 * `deploy_hook_deliveries`: the SHA-256 of each signed webhook body per project for a day, so a
 * replayed delivery is refused (pruned by the hook route).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('project_git_tokens', (table) => {
    table.integer('project_id').primary().references('id').inTable('projects').onDelete('CASCADE');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('address').notNullable();
    table.text('token_sealed').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id'], 'project_git_tokens_user_index');
  });
  const stored = await knex('projects').whereNotNull('git_token_sealed').select<{ id: number; repro: string | null; git_token_sealed: string }[]>('id', 'repro', 'git_token_sealed');
  for (const project of stored) {
    const address = credentialAddressOf(project.repro);
    const owner = await knex('audit_log as a')
      .join('project_user as pu', function joinMember() {
        this.on('pu.user_id', '=', 'a.actor_id').andOn('pu.project_id', '=', knex.raw('?', [project.id]));
      })
      .join('users as u', 'u.id', 'a.actor_id')
      .whereNull('u.disabled_at')
      .where({ 'a.action': 'project.deploy-settings', 'a.subject_type': 'project', 'a.subject_id': String(project.id) })
      .whereRaw("a.after->>'tokenReplaced' = 'true'")
      .orderBy('a.id', 'desc')
      .first<{ actor_id: number } | undefined>('a.actor_id');
    if (address === null || !owner) continue;
    await knex('project_git_tokens').insert({ project_id: project.id, user_id: owner.actor_id, address, token_sealed: project.git_token_sealed });
  }
  await knex.schema.alterTable('projects', (table) => {
    table.dropColumn('git_token_sealed');
    table.string('webhook_secret_notice', 16).nullable();
    table.timestamp('webhook_secret_notice_since', { useTz: true }).nullable();
  });
  await knex.raw("alter table projects add constraint projects_webhook_secret_notice_check check (webhook_secret_notice in ('member-left'))");
  await knex.schema.createTable('deploy_hook_deliveries', (table) => {
    table.integer('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    table.specificType('body_sha256', 'char(64)').notNullable();
    table.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['project_id', 'body_sha256']);
    table.index(['received_at'], 'deploy_hook_deliveries_received_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deploy_hook_deliveries');
  await knex.raw('alter table projects drop constraint if exists projects_webhook_secret_notice_check');
  await knex.schema.alterTable('projects', (table) => {
    table.dropColumns('webhook_secret_notice', 'webhook_secret_notice_since');
    table.text('git_token_sealed').nullable();
  });
  await knex.raw('update projects p set git_token_sealed = t.token_sealed from project_git_tokens t where t.project_id = p.id');
  await knex.schema.dropTable('project_git_tokens');
}
