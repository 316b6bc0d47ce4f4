import Router from '@koa/router';
import { changeImageOption, createImageOption as createImageOptionEndpoint, deleteImageOption as deleteImageOptionEndpoint, listImageOptions as listImageOptionsEndpoint } from '@devplein/contract/http/docker-images';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { listImageOptions } from '../../queries/docker-images.ts';
import { presentImageOption } from '../../presenters/present-image-option.ts';
import { createImageOption } from '../../commands/create-image-option.ts';
import { changeImageCapabilities, IMAGE_OPTION_NOT_FOUND } from '../../commands/change-image-capabilities.ts';
import { changeImageDeploy } from '../../commands/change-image-deploy.ts';
import { deleteImageOption } from '../../commands/delete-image-option.ts';
import { handle } from '../handle.ts';

export type { ImageOptionJson } from '../../presenters/present-image-option.ts';

/**
 * The image options of the request form (contract/src/http/docker-images.ts): GET/POST
 * /api/admin/dockers/images, PATCH /api/admin/dockers/images/{id} (its Linux capabilities and
 * where git deploys put the code), DELETE /api/admin/dockers/images/{id} (409 while projects use
 * it; option 1 'Anders' is the form's "teacher picks" and stays). Admins only, audited.
 * Registered before the admin dockers router, whose /api/admin/dockers/:name would match too.
 */
export function dockerImageRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  handle(router, listImageOptionsEndpoint, async () => (await listImageOptions(knex)).map(presentImageOption));

  handle(router, createImageOptionEndpoint, async (ctx, { caller, body }) => {
    const id = await createImageOption(knex, caller.id, body);
    const [row] = await listImageOptions(knex, id);
    ctx.status = 201;
    // Deleted in between by another admin: what was made.
    return row ? presentImageOption(row) : { id, ...body, projects: 0 };
  });

  handle(router, changeImageOption, async (_ctx, { caller, params: { id }, body: { capabilities, deploy } }) => {
    if (capabilities !== undefined) await changeImageCapabilities(knex, caller.id, id, capabilities);
    if (deploy !== undefined) await changeImageDeploy(knex, caller.id, id, deploy);
    const [row] = await listImageOptions(knex, id);
    if (!row) throw notFound(IMAGE_OPTION_NOT_FOUND);
    return presentImageOption(row);
  });

  handle(router, deleteImageOptionEndpoint, async (ctx, { caller, params: { id } }) => {
    await deleteImageOption(knex, caller.id, id);
    ctx.status = 204;
  });

  return router;
}
