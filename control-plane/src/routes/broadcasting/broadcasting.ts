import Router from '@koa/router';
import type { Knex } from 'knex';
import type Pusher from 'pusher';
import { authenticateSocketUser, authorizeChannel } from '@devplein/contract/http/broadcasting';
import type { AppRouter } from '../../app-context.ts';
import { forbidden } from '../../errors.ts';
import { mayJoinContainerChannel, parseChannel } from '../../policies/channel-policy.ts';
import { projectMemberIds } from '../../queries/channels.ts';
import { handle } from '../handle.ts';

/**
 * POST /broadcasting/auth (private channels) and POST /broadcasting/user-auth (user sign-in on
 * the socket); contract/src/http/broadcasting.ts.
 */
export function broadcastingRoutes(deps: { knex: Knex; realtime: Pusher }): AppRouter {
  const router: AppRouter = new Router();

  handle(router, authorizeChannel, async (_ctx, { caller, body: { socket_id, channel_name } }) => {
    const subject = parseChannel(channel_name);
    if (!subject) throw forbidden('Dit kanaal bestaat niet.');
    const members = await projectMemberIds(deps.knex, subject.containerName);
    if (!mayJoinContainerChannel(caller, members)) throw forbidden('Je hebt geen toegang tot dit kanaal.');
    return deps.realtime.authorizeChannel(socket_id, channel_name);
  });

  handle(router, authenticateSocketUser, async (_ctx, { caller, body: { socket_id } }) =>
    deps.realtime.authenticateUser(socket_id, { id: String(caller.id), user_info: { name: caller.name } }),
  );

  return router;
}
