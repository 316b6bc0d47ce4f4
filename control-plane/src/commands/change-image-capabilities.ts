import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound } from '../errors.ts';
import { DockerImage } from '../models/DockerImage.ts';

export const IMAGE_OPTION_NOT_FOUND = 'Deze image-optie bestaat niet.';

/**
 * PATCH /api/admin/dockers/images/{id}: only the capabilities are editable. They apply to
 * containers made from now on (a running container keeps the set it was created with until it
 * is recreated), while a changed image or SSH flag would change what existing projects run
 * behind their approval.
 */
export async function changeImageCapabilities(knex: Knex, actorId: number, id: number, capabilities: string[]): Promise<void> {
  await knex.transaction(async (trx) => {
    const option = await DockerImage.query(trx).findById(id).forUpdate().select('id', 'capabilities');
    if (!option) throw notFound(IMAGE_OPTION_NOT_FOUND);
    await DockerImage.query(trx).findById(id).patch({ capabilities });
    await recordAudit(trx, {
      actorId,
      action: 'docker-image.capabilities',
      subjectType: 'docker_image',
      subjectId: id,
      before: { capabilities: option.capabilities },
      after: { capabilities },
    });
  });
}
