import type { Knex } from 'knex';
import type { ImageDeploySettings } from '@devplein/contract/validation/imageDeploy';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound } from '../errors.ts';
import { DockerImage } from '../models/DockerImage.ts';
import { DEPLOY_COLUMNS } from '../queries/docker-images.ts';
import { IMAGE_OPTION_NOT_FOUND } from './change-image-capabilities.ts';

/** The docker_images columns of the deploy settings. */
export function deployColumns(settings: ImageDeploySettings) {
  return {
    deploy_web_root: settings.webRoot,
    deploy_after_update: settings.afterUpdate,
    deploy_keep_paths: settings.keepPaths,
    deploy_build_command: settings.buildCommand,
    deploy_build_output: settings.buildOutput,
  };
}

/**
 * PATCH /api/admin/dockers/images/{id} {deploy}: where git deploys of the option's projects put
 * the code. Unlike the image itself it may change while projects use the option: it applies
 * from the next deploy on, and the running site stays as it is until then. Audited with before
 * and after.
 */
export async function changeImageDeploy(knex: Knex, actorId: number, id: number, settings: ImageDeploySettings): Promise<void> {
  await knex.transaction(async (trx) => {
    const option = await DockerImage.query(trx)
      .findById(id)
      .forUpdate()
      .select('id', ...DEPLOY_COLUMNS);
    if (!option) throw notFound(IMAGE_OPTION_NOT_FOUND);
    const after = deployColumns(settings);
    await DockerImage.query(trx).findById(id).patch(after);
    const before = Object.fromEntries(DEPLOY_COLUMNS.map((column) => [column, option[column]]));
    await recordAudit(trx, { actorId, action: 'docker-image.deploy', subjectType: 'docker_image', subjectId: id, before, after });
  });
}
