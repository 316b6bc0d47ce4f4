import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { HttpError, notFound } from '../errors.ts';
import { DockerImage } from '../models/DockerImage.ts';
import { Project } from '../models/Project.ts';
import { OTHER_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import { IMAGE_OPTION_NOT_FOUND } from './change-image-capabilities.ts';

/**
 * DELETE /api/admin/dockers/images/{id}: 409 while projects use it; option 1 'Anders' is the
 * form's "teacher picks" and stays. Audited.
 */
export async function deleteImageOption(knex: Knex, actorId: number, id: number): Promise<void> {
  await knex.transaction(async (trx) => {
    const option = await DockerImage.query(trx).findById(id).forUpdate().select('id', 'name', 'image', 'ssh', 'wordpress');
    if (!option) throw notFound(IMAGE_OPTION_NOT_FOUND);
    if (id === OTHER_DOCKER_IMAGE) throw new HttpError(409, 'De optie "Anders" kan niet verwijderd worden.');
    const count = await Project.query(trx).where('docker_image_id', id).resultSize();
    if (count > 0) throw new HttpError(409, `Deze image-optie wordt nog door ${count} ${count === 1 ? 'project' : 'projecten'} gebruikt.`, { projects: count });
    await DockerImage.query(trx).deleteById(id);
    await recordAudit(trx, { actorId, action: 'docker-image.delete', subjectType: 'docker_image', subjectId: id, before: { name: option.name, image: option.image, ssh: option.ssh, wordpress: option.wordpress } });
  });
}
