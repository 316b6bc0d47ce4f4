import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { newWebhookSecret } from '../lib/webhook-secret.ts';

/** POST .../webhook-secret: a new random secret, stored sealed; the old one stops working at once. Audited without the secret. */
export async function renewWebhookSecret(deps: { knex: Knex; secrets: SecretBox }, projectId: number, actorId: number): Promise<void> {
  await deps.knex.transaction(async (trx) => {
    await trx('projects').where('id', projectId).update({ webhook_secret_sealed: deps.secrets.seal(newWebhookSecret()) });
    await recordAudit(trx, { actorId, action: 'project.webhook-secret', subjectType: 'project', subjectId: projectId });
  });
}
