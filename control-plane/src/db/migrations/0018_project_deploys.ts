import type { Knex } from 'knex';

/**
 * Push to deploy (issue 23): a project's git deploys, and its deploy settings on `projects`.
 *
 * `project_deploys` rows are the truth of the deploy queue: a request is recorded 'queued'
 * before the agent is asked, 'running' while its stream runs and 'deployed', 'failed' or
 * 'superseded' (a newer request came while it waited) at the end. `log` holds the deploy's
 * lines as JSON (capped by the control plane). On `projects`: the branch (null: the
 * repository's default branch), how git signs in ('none', 'deploy-key', 'token'), the HTTPS
 * token and the webhook secret, both sealed with the secret box (ENCRYPTION_KEY).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (table) => {
    table.string('deploy_branch', 200).nullable();
    table.string('deploy_auth', 16).notNullable().defaultTo('none');
    table.text('git_token_sealed').nullable();
    table.text('webhook_secret_sealed').nullable();
  });
  await knex.raw("alter table projects add constraint projects_deploy_auth_check check (deploy_auth in ('none', 'deploy-key', 'token'))");
  await knex.schema.createTable('project_deploys', (table) => {
    table.increments('id');
    table.integer('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    table.string('status', 16).notNullable();
    table.string('trigger', 16).notNullable();
    table.string('branch', 200).nullable();
    table.string('commit_hash', 40).nullable();
    table.string('commit_subject', 500).nullable();
    table.string('commit_author', 200).nullable();
    table.timestamp('committed_at', { useTz: true }).nullable();
    table.integer('requested_by').nullable().references('id').inTable('users').onDelete('SET NULL');
    table.string('failure', 32).nullable();
    table.text('message').nullable();
    table.jsonb('log').notNullable().defaultTo(knex.raw("'[]'::jsonb"));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('started_at', { useTz: true }).nullable();
    table.timestamp('finished_at', { useTz: true }).nullable();
    table.index(['project_id', 'id'], 'project_deploys_project_index');
  });
  await knex.raw(
    "alter table project_deploys add constraint project_deploys_status_check check (status in ('queued', 'running', 'deployed', 'failed', 'superseded'))",
  );
  // The queue's own look-up: what waits or runs, wherever it is.
  await knex.raw("create index project_deploys_open_index on project_deploys (project_id, id) where status in ('queued', 'running')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('project_deploys');
  await knex.raw('alter table projects drop constraint if exists projects_deploy_auth_check');
  await knex.schema.alterTable('projects', (table) => {
    table.dropColumns('deploy_branch', 'deploy_auth', 'git_token_sealed', 'webhook_secret_sealed');
  });
}
