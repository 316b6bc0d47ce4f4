import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayManageContainers } from '../../policies/container-policy.ts';
import { listImageOptions } from '../../queries/docker-images.ts';
import { presentImageOption } from '../../presenters/present-image-option.ts';
import { createImageOption } from '../../commands/create-image-option.ts';
import { changeImageCapabilities, IMAGE_OPTION_NOT_FOUND } from '../../commands/change-image-capabilities.ts';
import { changeImageDeploy } from '../../commands/change-image-deploy.ts';
import { deleteImageOption } from '../../commands/delete-image-option.ts';
import { imageOptionBody, imageOptionChangeBody, imageOptionParams } from './schema.ts';

export type { ImageOptionJson } from '../../presenters/present-image-option.ts';

function admin(ctx: AppContext): CurrentUser {
  const user = activeUser(ctx);
  if (!mayManageContainers(user)) throw forbidden();
  return user;
}

/**
 * The image options of the request form (spec §3 "Docker image option"): GET/POST
 * /api/admin/dockers/images, PATCH /api/admin/dockers/images/{id} (its Linux capabilities and
 * where git deploys put the code),
 * DELETE /api/admin/dockers/images/{id} (409 while projects use it; option 1 'Anders' is the
 * form's "teacher picks" and stays). Admins only, audited.
 * Registered before the admin dockers router, whose /api/admin/dockers/:name would match too.
 */
export function dockerImageRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  router.get('/api/admin/dockers/images', async (ctx) => {
    admin(ctx);
    ctx.body = (await listImageOptions(knex)).map(presentImageOption);
  });

  router.post('/api/admin/dockers/images', async (ctx) => {
    const user = admin(ctx);
    const input = parseInput(ctx, imageOptionBody, 'body');
    const id = await createImageOption(knex, user.id, input);
    const [row] = await listImageOptions(knex, id);
    ctx.status = 201;
    ctx.body = row ? presentImageOption(row) : { id, ...input, projects: 0 };
  });

  router.patch('/api/admin/dockers/images/:id', async (ctx) => {
    const user = admin(ctx);
    const { id } = parseInput(ctx, imageOptionParams, 'params');
    const { capabilities, deploy } = parseInput(ctx, imageOptionChangeBody, 'body');
    if (capabilities !== undefined) await changeImageCapabilities(knex, user.id, id, capabilities);
    if (deploy !== undefined) await changeImageDeploy(knex, user.id, id, deploy);
    const [row] = await listImageOptions(knex, id);
    if (!row) throw notFound(IMAGE_OPTION_NOT_FOUND);
    ctx.body = presentImageOption(row);
  });

  router.delete('/api/admin/dockers/images/:id', async (ctx) => {
    const user = admin(ctx);
    const { id } = parseInput(ctx, imageOptionParams, 'params');
    await deleteImageOption(knex, user.id, id);
    ctx.status = 204;
  });

  return router;
}
