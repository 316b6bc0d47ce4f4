import { BULK_MAX_NAMES } from '@devplein/contract/dockers';
import { z } from 'zod';
import { CONTAINER_ACTIONS, type ContainerActionName } from '../../agent/container-views.ts';

const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;
const NAME_MESSAGE = 'Ongeldige containernaam.';

/** :name of /api/admin/dockers/{name}: Docker's container name grammar ('images' is the image options' path). */
export const adminContainerParams = z.object({
  name: z.string().regex(CONTAINER_NAME, NAME_MESSAGE),
});

export const adminActionQuery = z.object({
  action: z.enum(CONTAINER_ACTIONS, { error: 'Kies start, stop, pause, unpause of restart.' }),
});

/** PUT /api/admin/dockers/{name}/owner {user}. */
export const ownerBody = z.object({
  user: z.coerce.number({ error: 'Kies een gebruiker.' }).int('Kies een gebruiker.').positive('Kies een gebruiker.').max(2_147_483_647, 'Kies een gebruiker.'),
});

/** POST /api/admin/dockers/bulk {names, action}; action 'delete' removes the containers. */
export const bulkBody = z.object({
  names: z.array(z.string().regex(CONTAINER_NAME, NAME_MESSAGE), { error: 'Geef een lijst met containernamen.' }).min(1, 'Kies minstens één container.').max(BULK_MAX_NAMES, `Kies hoogstens ${BULK_MAX_NAMES} containers.`),
  action: z
    .enum(['start', 'stop', 'pause', 'unpause', 'restart', 'delete'], { error: 'Kies start, stop, pause, unpause, restart of delete.' })
    .transform((value) => value as ContainerActionName | 'delete'),
});

/** :id of /api/admin/dockers/{id}/screenshot: a project id. */
export const screenshotParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig project.' }).int('Ongeldig project.').positive('Ongeldig project.').max(2_147_483_647, 'Ongeldig project.'),
});
