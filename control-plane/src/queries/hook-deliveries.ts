import type { Knex } from 'knex';

/** How long a signed webhook body is remembered (issue 35). */
export const DELIVERY_MEMORY_HOURS = 24;

/**
 * Remembers a signed webhook body (its SHA-256, hex) for the project and says whether it is new.
 * The delivery-id headers of the git servers are not signed, so the body is the key: a replay
 * of any delivery of the last day, newest or older, is refused by the caller. Rows older than a
 * day (of every project) are pruned first, so the table holds at most a day of deliveries.
 */
export async function rememberDelivery(knex: Knex, projectId: number, bodySha256: string): Promise<boolean> {
  await knex('deploy_hook_deliveries').where('received_at', '<', knex.raw(`now() - interval '${DELIVERY_MEMORY_HOURS} hours'`)).delete();
  const inserted = await knex('deploy_hook_deliveries')
    .insert({ project_id: projectId, body_sha256: bodySha256 })
    .onConflict(['project_id', 'body_sha256'])
    .ignore()
    .returning<{ project_id: number }[]>('project_id');
  return inserted.length > 0;
}

/** Forgets a remembered body (its handling failed on devplein's side, so the git server's retry must pass). */
export async function forgetDelivery(knex: Knex, projectId: number, bodySha256: string): Promise<void> {
  await knex('deploy_hook_deliveries').where({ project_id: projectId, body_sha256: bodySha256 }).delete();
}

/** The first delivery signed with a renewed secret: the git server has it, the card's banner goes. */
export async function clearWebhookNotice(knex: Knex, projectId: number): Promise<void> {
  await knex('projects').where('id', projectId).whereNotNull('webhook_secret_notice').update({ webhook_secret_notice: null, webhook_secret_notice_since: null });
}
