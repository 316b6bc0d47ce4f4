import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { mayManageContainers } from '../../policies/container-policy.ts';
import { OTHER_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import { imageOptionBody, imageOptionCapabilitiesBody, imageOptionParams } from './schema.ts';
import type { DockerImageOption } from '@devplein/contract/dockers';

/** An image option as the admin images page shows it. */
export type ImageOptionJson = DockerImageOption;

interface ImageOptionRow {
  id: number;
  name: string;
  image: string;
  ssh: boolean;
  wordpress: boolean;
  capabilities: string[];
  projects: number | string;
}

const presentImageOption = (row: ImageOptionRow): ImageOptionJson => ({
  id: Number(row.id),
  name: row.name,
  image: row.image,
  ssh: Boolean(row.ssh),
  wordpress: Boolean(row.wordpress),
  capabilities: [...row.capabilities],
  projects: Number(row.projects),
});

function admin(ctx: AppContext): CurrentUser {
  const user = activeUser(ctx);
  if (!mayManageContainers(user)) throw forbidden();
  return user;
}

const NAME_TAKEN = 'Er is al een image-optie met deze naam.';

/**
 * The image options of the request form (spec §3 "Docker image option"): GET/POST
 * /api/admin/dockers/images, PATCH /api/admin/dockers/images/{id} (its Linux capabilities),
 * DELETE /api/admin/dockers/images/{id} (409 while projects use it; option 1 'Anders' is the
 * form's "teacher picks" and stays). Admins only, audited.
 * Registered before the admin dockers router, whose /api/admin/dockers/:name would match too.
 */
export function dockerImageRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  const list = (filter?: number) =>
    knex('docker_images as di')
      .select<ImageOptionRow[]>('di.id', 'di.name', 'di.image', 'di.ssh', 'di.wordpress', 'di.capabilities', knex.raw('(select count(*) from projects p where p.docker_image_id = di.id)::int as projects'))
      .modify((query) => void (filter !== undefined && query.where('di.id', filter)))
      .orderBy('di.id');

  router.get('/api/admin/dockers/images', async (ctx) => {
    admin(ctx);
    ctx.body = (await list()).map(presentImageOption);
  });

  router.post('/api/admin/dockers/images', async (ctx) => {
    const user = admin(ctx);
    const input = parseInput(ctx, imageOptionBody, 'body');
    const id = await knex.transaction(async (trx) => {
      const same = await trx('docker_images').whereRaw('lower(name) = lower(?)', [input.name]).first('id');
      if (same) throw new HttpError(422, NAME_TAKEN, { errors: { name: [NAME_TAKEN] } });
      const [inserted] = await trx('docker_images').insert(input).returning<{ id: number }[]>('id');
      const newId = Number(inserted?.id);
      await recordAudit(trx, { actorId: user.id, action: 'docker-image.create', subjectType: 'docker_image', subjectId: newId, after: { ...input } });
      return newId;
    });
    const [row] = await list(id);
    ctx.status = 201;
    ctx.body = row ? presentImageOption(row) : { id, ...input, projects: 0 };
  });

  // Only the capabilities are editable: they apply to containers made from now on (a running
  // container keeps the set it was created with until it is recreated), while a changed image
  // or SSH flag would change what existing projects run behind their approval.
  router.patch('/api/admin/dockers/images/:id', async (ctx) => {
    const user = admin(ctx);
    const { id } = parseInput(ctx, imageOptionParams, 'params');
    const { capabilities } = parseInput(ctx, imageOptionCapabilitiesBody, 'body');
    await knex.transaction(async (trx) => {
      const option = await trx('docker_images').where('id', id).forUpdate().first<Pick<ImageOptionRow, 'id' | 'capabilities'> | undefined>('id', 'capabilities');
      if (!option) throw notFound('Deze image-optie bestaat niet.');
      await trx('docker_images').where('id', id).update({ capabilities });
      await recordAudit(trx, {
        actorId: user.id,
        action: 'docker-image.capabilities',
        subjectType: 'docker_image',
        subjectId: id,
        before: { capabilities: option.capabilities },
        after: { capabilities },
      });
    });
    const [row] = await list(id);
    if (!row) throw notFound('Deze image-optie bestaat niet.');
    ctx.body = presentImageOption(row);
  });

  router.delete('/api/admin/dockers/images/:id', async (ctx) => {
    const user = admin(ctx);
    const { id } = parseInput(ctx, imageOptionParams, 'params');
    await knex.transaction(async (trx) => {
      const option = await trx('docker_images').where('id', id).forUpdate().first<ImageOptionRow | undefined>('id', 'name', 'image', 'ssh', 'wordpress');
      if (!option) throw notFound('Deze image-optie bestaat niet.');
      if (id === OTHER_DOCKER_IMAGE) throw new HttpError(409, 'De optie "Anders" kan niet verwijderd worden.');
      const used = await trx('projects').where('docker_image_id', id).count<{ count: string | number }[]>('* as count').first();
      const count = Number(used?.count ?? 0);
      if (count > 0) throw new HttpError(409, `Deze image-optie wordt nog door ${count} ${count === 1 ? 'project' : 'projecten'} gebruikt.`, { projects: count });
      await trx('docker_images').where('id', id).delete();
      await recordAudit(trx, { actorId: user.id, action: 'docker-image.delete', subjectType: 'docker_image', subjectId: id, before: { name: option.name, image: option.image, ssh: option.ssh, wordpress: option.wordpress } });
    });
    ctx.status = 204;
  });

  return router;
}
