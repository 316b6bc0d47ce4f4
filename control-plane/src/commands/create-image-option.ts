import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { HttpError } from '../errors.ts';
import type { ImageDeploySettings } from '@devplein/contract/validation/imageDeploy';
import { DockerImage } from '../models/DockerImage.ts';
import { deployColumns } from './change-image-deploy.ts';

const NAME_TAKEN = 'Er is al een image-optie met deze naam.';

export interface NewImageOption {
  name: string;
  image: string;
  ssh: boolean;
  wordpress: boolean;
  capabilities: string[];
  deploy: ImageDeploySettings;
}

/** POST /api/admin/dockers/images: a new option (its name unique regardless of case), audited. Returns its id. */
export async function createImageOption(knex: Knex, actorId: number, input: NewImageOption): Promise<number> {
  return knex.transaction(async (trx) => {
    const same = await DockerImage.query(trx).whereRaw('lower(name) = lower(?)', [input.name]).first().select('id');
    if (same) throw new HttpError(422, NAME_TAKEN, { errors: { name: [NAME_TAKEN] } });
    const { deploy, ...option } = input;
    const inserted = await DockerImage.query(trx).insert({ ...option, ...deployColumns(deploy) });
    const id = Number(inserted.id);
    await recordAudit(trx, { actorId, action: 'docker-image.create', subjectType: 'docker_image', subjectId: id, after: { ...input } });
    return id;
  });
}
