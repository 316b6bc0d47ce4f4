import Router from '@koa/router';
import type { Knex } from 'knex';
import type Pusher from 'pusher';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden } from '../../errors.ts';
import { mayJoinContainerChannel, parseChannel } from '../../policies/channel-policy.ts';
import { projectMemberIds } from '../../queries/channels.ts';
import { channelAuthBody, userAuthBody } from './schema.ts';

/** POST /broadcasting/auth (private channels) and POST /broadcasting/user-auth (user sign-in on the socket). */
export function broadcastingRoutes(deps: { knex: Knex; realtime: Pusher }): AppRouter {
  const router: AppRouter = new Router();

  router.post('/broadcasting/auth', async (ctx) => {
    const user = activeUser(ctx);
    const { socket_id, channel_name } = parseInput(ctx, channelAuthBody, 'body');
    const subject = parseChannel(channel_name);
    if (!subject) throw forbidden('Dit kanaal bestaat niet.');
    const members = await projectMemberIds(deps.knex, subject.containerName);
    if (!mayJoinContainerChannel(user, members)) throw forbidden('Je hebt geen toegang tot dit kanaal.');
    ctx.body = deps.realtime.authorizeChannel(socket_id, channel_name);
  });

  router.post('/broadcasting/user-auth', (ctx) => {
    const user = activeUser(ctx);
    const { socket_id } = parseInput(ctx, userAuthBody, 'body');
    ctx.body = deps.realtime.authenticateUser(socket_id, { id: String(user.id), user_info: { name: user.name } });
  });

  return router;
}
