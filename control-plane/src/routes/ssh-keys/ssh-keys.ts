import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { MAX_SSH_KEYS_PER_USER, mayManageSshKeys, ownsSshKey } from '../../policies/ssh-key-policy.ts';
import { presentSshKey, type SshKeyJson, type SshKeyRow } from '../../presenters/present-ssh-key.ts';
import { parseSshPublicKey } from '../../ssh/ssh-public-key.ts';
import { DUPLICATE_SSH_KEY_MESSAGE, INVALID_SSH_KEY_MESSAGE } from '@devplein/contract/validation/sshKeyFormat';
import { newSshKeyBody, sshKeyIdParams } from './schema.ts';
import { syncUserSshKeys } from '../../commands/sync-user-ssh-keys.ts';

/** A 422 about the key field, with the message the form shows as-is. */
const sshKeyRefused = (message: string): HttpError => new HttpError(422, message, { errors: { sshKey: [message] } });

/** The signed-in developer, or 401/403 (spec §6: SSH keys are for developers). */
function developer(ctx: Parameters<typeof activeUser>[0]): CurrentUser {
  const user = activeUser(ctx);
  if (!mayManageSshKeys(user)) throw forbidden('SSH keys zijn alleen voor ontwikkelaars.');
  return user;
}

async function listKeys(knex: Knex, userId: number): Promise<SshKeyJson[]> {
  const rows = await knex('ssh_keys')
    .select<SshKeyRow[]>('id', 'name', 'public_key', 'fingerprint', 'created_at')
    .where('user_id', userId)
    .orderBy('id');
  return rows.map(presentSshKey);
}

const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

/** Routes of SSH keys of the signed-in developer (/api/user/ssh_keys). */
export function sshKeyRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'logger'>): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();
  // The containers follow in the background: the key change does not wait for (or fail on) the agent.
  const syncContainers = (userId: number): void => void syncUserSshKeys({ knex, agents: deps.agents, logger: deps.logger.child({ component: 'ssh-key-sync' }) }, userId);

  router.get('/api/user/ssh_keys', async (ctx) => {
    const user = developer(ctx);
    ctx.body = await listKeys(knex, user.id);
  });

  router.post('/api/user/ssh_keys', async (ctx) => {
    const user = developer(ctx);
    const input = parseInput(ctx, newSshKeyBody, 'body');
    const key = parseSshPublicKey(input.sshKey);
    if (key === null) throw sshKeyRefused(INVALID_SSH_KEY_MESSAGE);

    try {
      await knex.transaction(async (trx) => {
        // One key belongs to one account: a key someone else stored is refused the same way.
        const existing = await trx('ssh_keys').where('fingerprint', key.fingerprint).first('id');
        if (existing) throw sshKeyRefused(DUPLICATE_SSH_KEY_MESSAGE);
        // Lock the user's row so two uploads at once cannot pass the limit together.
        await trx('users').where('id', user.id).forUpdate().first('id');
        const row = await trx('ssh_keys').where('user_id', user.id).count<{ count: string | number }[]>('* as count').first();
        if (Number(row?.count ?? 0) >= MAX_SSH_KEYS_PER_USER) {
          throw sshKeyRefused(`Je kunt maximaal ${MAX_SSH_KEYS_PER_USER} SSH keys opslaan. Verwijder eerst een oude key.`);
        }
        await trx('ssh_keys').insert({
          user_id: user.id,
          name: input.name,
          public_key: key.normalized,
          fingerprint: key.fingerprint,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw sshKeyRefused(DUPLICATE_SSH_KEY_MESSAGE);
      throw error;
    }
    ctx.state.log.info({ userId: user.id, fingerprint: key.fingerprint }, 'ssh key added');
    syncContainers(user.id);
    ctx.body = await listKeys(knex, user.id);
  });

  router.delete('/api/user/ssh_keys/:id', async (ctx) => {
    const user = developer(ctx);
    const { id } = parseInput(ctx, sshKeyIdParams, 'params');
    const key = await knex('ssh_keys').where('id', id).first<{ id: number; user_id: number } | undefined>('id', 'user_id');
    if (!key || !ownsSshKey(user, key)) throw notFound('Deze SSH key bestaat niet.');
    await knex('ssh_keys').where({ id: key.id, user_id: user.id }).delete();
    ctx.state.log.info({ userId: user.id, sshKeyId: key.id }, 'ssh key removed');
    syncContainers(user.id);
    ctx.body = await listKeys(knex, user.id);
  });

  return router;
}
