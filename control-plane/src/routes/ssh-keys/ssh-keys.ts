import Router from '@koa/router';
import { addSshKey as addSshKeyEndpoint, deleteSshKey as deleteSshKeyEndpoint, listSshKeys } from '@devplein/contract/http/ssh-keys';
import { INVALID_SSH_KEY_MESSAGE } from '@devplein/contract/validation/sshKeyFormat';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { ownsSshKey } from '../../policies/ssh-key-policy.ts';
import { presentSshKey } from '../../presenters/present-ssh-key.ts';
import { findSshKey, sshKeysOf } from '../../queries/ssh-keys.ts';
import { parseSshPublicKey } from '../../ssh/ssh-public-key.ts';
import { addSshKey, sshKeyRefused } from '../../commands/add-ssh-key.ts';
import { deleteSshKey } from '../../commands/delete-ssh-key.ts';
import { syncUserSshKeys } from '../../commands/sync-user-ssh-keys.ts';
import { handle } from '../handle.ts';

/** Routes of SSH keys of the signed-in developer (contract/src/http/ssh-keys.ts: developers only, spec §6). */
export function sshKeyRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'logger'>): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();
  // The containers follow in the background: the key change does not wait for (or fail on) the agent.
  const syncContainers = (userId: number): void => void syncUserSshKeys({ knex, agents: deps.agents, logger: deps.logger.child({ component: 'ssh-key-sync' }) }, userId);
  const keysOf = async (userId: number) => (await sshKeysOf(knex, userId)).map(presentSshKey);

  handle(router, listSshKeys, async (_ctx, { caller }) => keysOf(caller.id));

  handle(router, addSshKeyEndpoint, async (ctx, { caller, body }) => {
    const key = parseSshPublicKey(body.sshKey);
    if (key === null) throw sshKeyRefused(INVALID_SSH_KEY_MESSAGE);
    await addSshKey(knex, caller.id, { name: body.name, publicKey: key.normalized, fingerprint: key.fingerprint });
    ctx.state.log.info({ userId: caller.id, fingerprint: key.fingerprint }, 'ssh key added');
    syncContainers(caller.id);
    return keysOf(caller.id);
  });

  handle(router, deleteSshKeyEndpoint, async (ctx, { caller, params }) => {
    const key = await findSshKey(knex, params.id);
    if (!key || !ownsSshKey(caller, key)) throw notFound('Deze SSH key bestaat niet.');
    await deleteSshKey(knex, caller.id, key.id);
    ctx.state.log.info({ userId: caller.id, sshKeyId: key.id }, 'ssh key removed');
    syncContainers(caller.id);
    return keysOf(caller.id);
  });

  return router;
}
