import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import { renewWebhookSecretIn } from './deploy-credentials.ts';

/** POST .../webhook-secret: a new random secret, stored sealed; the old one stops working at once. Audited without the secret. */
export async function renewWebhookSecret(deps: { knex: Knex; secrets: SecretBox }, projectId: number, actorId: number): Promise<void> {
  await deps.knex.transaction(async (trx) => renewWebhookSecretIn(trx, deps.secrets, projectId, actorId, 'asked'));
}
