import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayManageSshKeys, ownsSshKey } from '../../policies/ssh-key-policy.ts';
import { presentSshKey } from '../../presenters/present-ssh-key.ts';
import { findSshKey, sshKeysOf } from '../../queries/ssh-keys.ts';
import { parseSshPublicKey } from '../../ssh/ssh-public-key.ts';
import { INVALID_SSH_KEY_MESSAGE } from '@devplein/contract/validation/sshKeyFormat';
import { newSshKeyBody, sshKeyIdParams } from './schema.ts';
import { addSshKey, sshKeyRefused } from '../../commands/add-ssh-key.ts';
import { deleteSshKey } from '../../commands/delete-ssh-key.ts';
import { syncUserSshKeys } from '../../commands/sync-user-ssh-keys.ts';

/** The signed-in developer, or 401/403 (spec §6: SSH keys are for developers). */
function developer(ctx: Parameters<typeof activeUser>[0]): CurrentUser {
  const user = activeUser(ctx);
  if (!mayManageSshKeys(user)) throw forbidden('SSH keys zijn alleen voor ontwikkelaars.');
  return user;
}

/** Routes of SSH keys of the signed-in developer (/api/user/ssh_keys). */
export function sshKeyRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'logger'>): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();
  // The containers follow in the background: the key change does not wait for (or fail on) the agent.
  const syncContainers = (userId: number): void => void syncUserSshKeys({ knex, agents: deps.agents, logger: deps.logger.child({ component: 'ssh-key-sync' }) }, userId);

  router.get('/api/user/ssh_keys', async (ctx) => {
    const user = developer(ctx);
    ctx.body = (await sshKeysOf(knex, user.id)).map(presentSshKey);
  });

  router.post('/api/user/ssh_keys', async (ctx) => {
    const user = developer(ctx);
    const input = parseInput(ctx, newSshKeyBody, 'body');
    const key = parseSshPublicKey(input.sshKey);
    if (key === null) throw sshKeyRefused(INVALID_SSH_KEY_MESSAGE);

    await addSshKey(knex, user.id, { name: input.name, publicKey: key.normalized, fingerprint: key.fingerprint });
    ctx.state.log.info({ userId: user.id, fingerprint: key.fingerprint }, 'ssh key added');
    syncContainers(user.id);
    ctx.body = (await sshKeysOf(knex, user.id)).map(presentSshKey);
  });

  router.delete('/api/user/ssh_keys/:id', async (ctx) => {
    const user = developer(ctx);
    const { id } = parseInput(ctx, sshKeyIdParams, 'params');
    const key = await findSshKey(knex, id);
    if (!key || !ownsSshKey(user, key)) throw notFound('Deze SSH key bestaat niet.');
    await deleteSshKey(knex, user.id, key.id);
    ctx.state.log.info({ userId: user.id, sshKeyId: key.id }, 'ssh key removed');
    syncContainers(user.id);
    ctx.body = (await sshKeysOf(knex, user.id)).map(presentSshKey);
  });

  return router;
}
