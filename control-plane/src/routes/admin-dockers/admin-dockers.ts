import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayManageContainers } from '../../policies/container-policy.ts';
import { findContainer, loadAdminDockerRow, loadAdminDockers, screenshotStateOf } from '../../queries/admin-dockers.ts';
import { presentAdminDockerRow } from '../../presenters/present-admin-docker.ts';
import { changeAdminContainerState } from '../../commands/change-admin-container-state.ts';
import { removeContainer } from '../../commands/remove-container.ts';
import { runBulkContainerAction } from '../../commands/run-bulk-container-action.ts';
import { adoptContainer } from '../../commands/adopt-container.ts';
import { requestScreenshot } from '../../commands/request-screenshot.ts';
import { appThumbnailCapturer } from '../../commands/capture-thumbnail.ts';
import { adminActionQuery, adminContainerParams, bulkBody, ownerBody, screenshotParams } from './schema.ts';

/** The admin, or 401/403. */
function admin(ctx: AppContext): CurrentUser {
  const user = activeUser(ctx);
  if (!mayManageContainers(user)) throw forbidden();
  return user;
}

/** :name, except the image options' path segment (its own router answers those). */
function containerName(ctx: AppContext): string {
  const { name } = parseInput(ctx, adminContainerParams, 'params');
  if (name === 'images' || name === 'bulk') throw notFound('Deze container bestaat niet.');
  return name;
}

/**
 * The admin dockers screen (spec §2, §7): every container of every dev server incl. unmanaged ones,
 * actions, removal, adopting an unmanaged container for a user, and bulk actions. Admins only;
 * every write is in the audit trail. Agent down → 503. Per project: the site screenshot state
 * and 'ververs screenshot' (POST answers 202 at once; the capture runs in the background).
 */
export function adminDockerRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const thumbnails = appThumbnailCapturer(deps);
  const commandDeps = { knex: deps.knex, agents: deps.agents, thumbnails };

  router.get('/api/admin/dockers', async (ctx) => {
    admin(ctx);
    ctx.body = (await loadAdminDockers(commandDeps)).map(presentAdminDockerRow);
  });

  router.post('/api/admin/dockers/bulk', async (ctx) => {
    const user = admin(ctx);
    const { names, action } = parseInput(ctx, bulkBody, 'body');
    const results = await runBulkContainerAction(commandDeps, user.id, [...new Set(names)], action);
    ctx.state.log.info({ userId: user.id, action, count: names.length }, 'bulk container action');
    ctx.body = { results };
  });

  router.get('/api/admin/dockers/:name', async (ctx) => {
    admin(ctx);
    const name = containerName(ctx);
    ctx.body = presentAdminDockerRow(await loadAdminDockerRow(commandDeps, await findContainer(commandDeps, name)));
  });

  router.put('/api/admin/dockers/:name', async (ctx) => {
    const user = admin(ctx);
    const name = containerName(ctx);
    const { action } = parseInput(ctx, adminActionQuery, 'query');
    const placed = await changeAdminContainerState(commandDeps, user.id, name, action);
    const row = presentAdminDockerRow(await loadAdminDockerRow(commandDeps, placed));
    ctx.state.log.info({ userId: user.id, container: name, action }, 'admin container action');
    ctx.body = [row];
  });

  router.delete('/api/admin/dockers/:name', async (ctx) => {
    const user = admin(ctx);
    const name = containerName(ctx);
    const result = await removeContainer(commandDeps, user.id, name);
    ctx.state.log.info({ userId: user.id, container: name, removed: result.removed }, 'admin container removed');
    ctx.body = { removed: result.removed };
  });

  router.put('/api/admin/dockers/:name/owner', async (ctx) => {
    const user = admin(ctx);
    const name = containerName(ctx);
    const { user: ownerId } = parseInput(ctx, ownerBody, 'body');
    const placed = await adoptContainer(commandDeps, user.id, name, ownerId);
    const row = presentAdminDockerRow(await loadAdminDockerRow(commandDeps, placed));
    ctx.state.log.info({ userId: user.id, container: name, ownerId }, 'container adopted');
    ctx.body = row;
  });

  router.get('/api/admin/dockers/:id/screenshot', async (ctx) => {
    admin(ctx);
    const { id } = parseInput(ctx, screenshotParams, 'params');
    ctx.body = await screenshotStateOf(commandDeps, id);
  });

  router.post('/api/admin/dockers/:id/screenshot', async (ctx) => {
    const user = admin(ctx);
    const { id } = parseInput(ctx, screenshotParams, 'params');
    const state = await requestScreenshot(commandDeps, user.id, id);
    ctx.state.log.info({ userId: user.id, projectId: id }, 'screenshot requested');
    ctx.status = 202;
    ctx.body = state;
  });

  return router;
}
