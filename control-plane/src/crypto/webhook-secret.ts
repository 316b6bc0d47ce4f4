import { createHmac, randomBytes } from 'node:crypto';
import type { SecretBox } from './secret-box.ts';

/**
 * A project's deploy webhook secret. Until a member asks for a new one it is derived from the
 * encryption key and the project id (HMAC-SHA256), so reading the panel writes nothing; a new
 * one (POST .../webhook-secret) is random and stored sealed, and replaces the derived one.
 */
export function webhookSecretOf(project: { id: number; webhook_secret_sealed: string | null }, secrets: SecretBox, encryptionKey: Buffer): string {
  if (project.webhook_secret_sealed) return secrets.open(project.webhook_secret_sealed);
  return createHmac('sha256', encryptionKey).update(`devplein-deploy-webhook:${project.id}`).digest('hex');
}

/** A new random secret (hex, 64 characters). */
export const newWebhookSecret = (): string => randomBytes(32).toString('hex');
