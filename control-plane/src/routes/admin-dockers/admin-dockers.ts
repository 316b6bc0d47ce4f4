import Router from '@koa/router';
import {
  adoptAdminDocker,
  bulkContainerAction,
  changeAdminDockerState,
  listAdminDockers,
  removeAdminDocker,
  requestScreenshot as requestScreenshotEndpoint,
  screenshotState,
  showAdminDocker,
} from '@devplein/contract/http/admin-dockers';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { findContainer, loadAdminDockerRow, loadAdminDockers, screenshotStateOf } from '../../queries/admin-dockers.ts';
import { presentAdminDockerRow } from '../../presenters/present-admin-docker.ts';
import { changeAdminContainerState } from '../../commands/change-admin-container-state.ts';
import { removeContainer } from '../../commands/remove-container.ts';
import { runBulkContainerAction } from '../../commands/run-bulk-container-action.ts';
import { adoptContainer } from '../../commands/adopt-container.ts';
import { requestScreenshot } from '../../commands/request-screenshot.ts';
import { handle } from '../handle.ts';

/** :name, except the image options' and the bulk action's path segments (their own endpoints). */
function containerName(name: string): string {
  if (name === 'images' || name === 'bulk') throw notFound('Deze container bestaat niet.');
  return name;
}

/**
 * The admin dockers screen (spec §2, §7; contract/src/http/admin-dockers.ts): every container of
 * every dev server incl. unmanaged ones, actions, removal, adopting an unmanaged container for a
 * user, and bulk actions. Admins only; every write is in the audit trail. Agent down → 503. Per
 * project: the site screenshot state and 'ververs screenshot' (POST answers 202 at once; the
 * capture runs in the background).
 */
export function adminDockerRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const commandDeps = { knex: deps.knex, agents: deps.agents, thumbnails: deps.services.thumbnails };

  handle(router, listAdminDockers, async () => (await loadAdminDockers(commandDeps)).map(presentAdminDockerRow));

  handle(router, bulkContainerAction, async (ctx, { caller, body: { names, action } }) => {
    const results = await runBulkContainerAction(commandDeps, caller.id, [...new Set(names)], action);
    ctx.state.log.info({ userId: caller.id, action, count: names.length }, 'bulk container action');
    return { results };
  });

  handle(router, showAdminDocker, async (_ctx, { params }) => {
    const name = containerName(params.name);
    return presentAdminDockerRow(await loadAdminDockerRow(commandDeps, await findContainer(commandDeps, name)));
  });

  handle(router, changeAdminDockerState, async (ctx, { caller, params, query: { action } }) => {
    const name = containerName(params.name);
    const placed = await changeAdminContainerState(commandDeps, caller.id, name, action);
    const row = presentAdminDockerRow(await loadAdminDockerRow(commandDeps, placed));
    ctx.state.log.info({ userId: caller.id, container: name, action }, 'admin container action');
    return [row];
  });

  handle(router, removeAdminDocker, async (ctx, { caller, params }) => {
    const name = containerName(params.name);
    const result = await removeContainer(commandDeps, caller.id, name);
    ctx.state.log.info({ userId: caller.id, container: name, removed: result.removed }, 'admin container removed');
    return { removed: result.removed };
  });

  handle(router, adoptAdminDocker, async (ctx, input) => {
    const { caller, params } = input;
    const name = containerName(params.name);
    // The body is read after the name: 'images' and 'bulk' answer 404 whatever it is.
    const { user: ownerId } = input.body;
    const placed = await adoptContainer(commandDeps, caller.id, name, ownerId);
    const row = presentAdminDockerRow(await loadAdminDockerRow(commandDeps, placed));
    ctx.state.log.info({ userId: caller.id, container: name, ownerId }, 'container adopted');
    return row;
  });

  handle(router, screenshotState, async (_ctx, { params: { id } }) => screenshotStateOf(commandDeps, id));

  handle(router, requestScreenshotEndpoint, async (ctx, { caller, params: { id } }) => {
    const state = await requestScreenshot(commandDeps, caller.id, id);
    ctx.state.log.info({ userId: caller.id, projectId: id }, 'screenshot requested');
    ctx.status = 202;
    return state;
  });

  return router;
}
