import { isUniqueViolation } from '../db/database-errors.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { HttpError } from '../errors.ts';
import { Project } from '../models/Project.ts';
import { findContainer, type AdminDockerDeps, type PlacedContainer } from '../queries/admin-dockers.ts';
import { PROJECT_NAME_PATTERN } from '@devplein/contract/validation/projectRequest';

export const ALREADY_OWNED_MESSAGE = 'Deze container hoort al bij een project.';
export const NOT_A_PROJECT_NAME_MESSAGE =
  'Deze container kan geen project worden: een projectnaam heeft alleen kleine letters (a-z) en streepjes en begint met een letter. Hernoem de container eerst.';

/**
 * Adopts an unmanaged container: a project row named after it (approved, on the dev server the
 * container is on, domain `{name}.{that server's site domain}`, the user as only member, the image
 * option whose reference matches) that the container is linked to by name. 409 when a project
 * already claims it. Returns the container and its dev server.
 */
export async function adoptContainer(deps: AdminDockerDeps, actorId: number, name: string, userId: number): Promise<PlacedContainer> {
  const { container, link } = await findContainer(deps, name);
  if (container.managed || container.projectId > 0) throw new HttpError(409, ALREADY_OWNED_MESSAGE);
  // The project takes the container's name, and its domain is made from it: Docker allows names
  // (capitals, '_', '.') that are no project name and no host name label.
  if (!PROJECT_NAME_PATTERN.test(name)) throw new HttpError(422, NOT_A_PROJECT_NAME_MESSAGE, { errors: { name: [NOT_A_PROJECT_NAME_MESSAGE] } });
  const domain = `${name}.${link.siteDomain}`.toLowerCase();
  await insertAdoptedProject(deps, actorId, { container, host: link.name }, domain, userId).catch((error: unknown) => {
    // Two adoptions at once: the unique name/domain of projects decides, the loser gets the 409.
    if (isUniqueViolation(error)) throw new HttpError(409, ALREADY_OWNED_MESSAGE);
    throw error;
  });
  return { container, host: link.name };
}

async function insertAdoptedProject(deps: AdminDockerDeps, actorId: number, { container, host }: PlacedContainer, domain: string, userId: number): Promise<void> {
  const name = container.name;
  await deps.knex.transaction(async (trx) => {
    const user = await trx('users').where('id', userId).whereNotNull('email_verified_at').whereNull('disabled_at').first('id');
    if (!user) {
      const message = 'Deze gebruiker bestaat niet of is niet geactiveerd.';
      throw new HttpError(422, message, { errors: { user: [message] } });
    }
    const taken = await trx('projects').where('name', name).orWhere('domain', domain).first('id');
    if (taken) throw new HttpError(409, ALREADY_OWNED_MESSAGE);
    const image = await trx('docker_images').where('image', container.image).orderBy('id').first<{ id: number } | undefined>('id');
    const inserted = await Project.query(trx).insert({
        name,
        domain,
        host,
        description: `Bestaande container ${name}, overgenomen door een beheerder.`,
        visible: false,
        docker_image_id: image?.id ?? null,
        validated: true,
        created_by: actorId,
      });
    const projectId = Number(inserted.id);
    await trx('project_user').insert({ project_id: projectId, user_id: userId, position: 0 });
    await recordAudit(trx, {
      actorId,
      action: 'container.adopt',
      subjectType: 'project',
      subjectId: projectId,
      after: { container: name, user: userId, domain, host, docker_image_id: image?.id ?? null },
    });
  });
}
