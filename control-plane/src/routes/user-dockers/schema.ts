import { z } from 'zod';
import { CONTAINER_ACTIONS } from '../../agent/container-views.ts';

const projectId = z.coerce
  .number({ error: 'Ongeldig projectnummer.' })
  .int('Ongeldig projectnummer.')
  .positive('Ongeldig projectnummer.')
  .max(2_147_483_647, 'Ongeldig projectnummer.');

/** POST /api/user/dockers {id}. */
export const createDockerBody = z.object({ id: projectId });

/** PUT /api/user/dockers/{projectId}. */
export const projectIdParams = z.object({ projectId });

/** ?action=start|stop|pause|unpause|restart. */
export const actionQuery = z.object({
  action: z.enum(CONTAINER_ACTIONS, { error: 'Kies start, stop, pause, unpause of restart.' }),
});

/** A container (= project) name in a path. */
export const containerNameParams = z.object({
  name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, 'Ongeldige containernaam.'),
});

const flag = z.enum(['1', 'true', '0', 'false', '']).optional().transform((value) => value === '1' || value === 'true');

/** GET /api/user/container/{name}?tail=&format=&download=. */
export const logsQuery = z.object({
  tail: z.coerce.number({ error: 'tail moet een getal van 1 tot 5000 zijn.' }).int('tail moet een getal van 1 tot 5000 zijn.').min(1, 'tail moet een getal van 1 tot 5000 zijn.').max(5000, 'tail moet een getal van 1 tot 5000 zijn.').default(500),
  format: z.enum(['text', 'json'], { error: 'Gebruik format=text of format=json.' }).default('text'),
  download: flag,
});

/** GET /api/user/container/{name}/follow?tail=. */
export const followQuery = z.object({
  tail: z.coerce.number({ error: 'tail moet een getal van 0 tot 5000 zijn.' }).int('tail moet een getal van 0 tot 5000 zijn.').min(0, 'tail moet een getal van 0 tot 5000 zijn.').max(5000, 'tail moet een getal van 0 tot 5000 zijn.').default(0),
});

/** Docker's image reference grammar, simplified: [registry[:port]/]path[:tag][@digest]. */
export const IMAGE_REFERENCE =
  /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export const IMAGE_REFERENCE_MESSAGE = 'Dit is geen geldige image-naam (bijvoorbeeld registry.school.nl/php:8.3).';

/** POST /api/user/dockers_images {image, project_id}. */
export const pullBody = z.object({
  image: z.string({ error: IMAGE_REFERENCE_MESSAGE }).trim().max(255, IMAGE_REFERENCE_MESSAGE).regex(IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE),
  project_id: projectId,
});
