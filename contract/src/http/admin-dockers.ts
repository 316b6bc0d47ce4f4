/**
 * The admin dockers screen (spec §2, §7), admins only, every write audited: every container of
 * every dev server (unmanaged ones too), their actions, removal, adopting an unmanaged container
 * for a user, bulk actions, and a project's site screenshot. A dev server down: 503.
 */
import { z } from 'zod';
import { adminDockerJson, BULK_MAX_NAMES, bulkResultJson, CONTAINER_ACTIONS, screenshotStateJson } from '../dockers.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;
const NAME_MESSAGE = 'Ongeldige containernaam.';

/** :name: Docker's container name grammar ('images' and 'bulk' are other endpoints' paths: 404 here). */
const containerParams = z.object({ name: z.string().regex(CONTAINER_NAME, NAME_MESSAGE) });
/** :id of the screenshot paths: a project id. */
const screenshotParams = z.object({ id: recordId('Ongeldig project.') });

export const listAdminDockers = endpoint({
  method: 'GET',
  path: '/api/admin/dockers',
  access: 'admin',
  summary: 'Every container on every dev server, managed or not, with its owner, screenshot state and deployed commit. 503 when a dev server does not answer.',
  answer: json(z.array(adminDockerJson)),
});

export const bulkContainerAction = endpoint({
  method: 'POST',
  path: '/api/admin/dockers/bulk',
  access: 'admin',
  summary: 'One action (start, stop, pause, unpause, restart or delete) on many containers, one after another; per container whether it worked. Audited per container.',
  body: z.object({
    names: z
      .array(z.string().regex(CONTAINER_NAME, NAME_MESSAGE), { error: 'Geef een lijst met containernamen.' })
      .min(1, 'Kies minstens één container.')
      .max(BULK_MAX_NAMES, `Kies hoogstens ${BULK_MAX_NAMES} containers.`),
    action: z.enum([...CONTAINER_ACTIONS, 'delete'], { error: 'Kies start, stop, pause, unpause, restart of delete.' }),
  }),
  answer: json(z.strictObject({ results: z.array(bulkResultJson) })),
});

export const showAdminDocker = endpoint({
  method: 'GET',
  path: '/api/admin/dockers/:name',
  access: 'admin',
  summary: 'One container as a row of the table. Unknown: 404.',
  params: containerParams,
  answer: json(adminDockerJson),
});

export const changeAdminDockerState = endpoint({
  method: 'PUT',
  path: '/api/admin/dockers/:name',
  access: 'admin',
  summary: "Starts, stops, pauses, unpauses or restarts a container (`?action=`); answers `[row]` with its new state. Audited.",
  params: containerParams,
  query: z.object({ action: z.enum(CONTAINER_ACTIONS, { error: 'Kies start, stop, pause, unpause of restart.' }) }),
  answer: json(z.array(adminDockerJson)),
});

export const removeAdminDocker = endpoint({
  method: 'DELETE',
  path: '/api/admin/dockers/:name',
  access: 'admin',
  summary: "Removes a container (a project behind it stays, 'Nog niet gecreëerd'); `removed` false when it was not there. Audited.",
  params: containerParams,
  answer: json(z.strictObject({ removed: z.boolean() })),
});

export const adoptAdminDocker = endpoint({
  method: 'PUT',
  path: '/api/admin/dockers/:name/owner',
  access: 'admin',
  summary: 'Adopts an unmanaged container for a user (`user`: their id): a project of theirs around it. Answers the row. Audited.',
  params: containerParams,
  body: z.object({ user: recordId('Kies een gebruiker.') }),
  answer: json(adminDockerJson),
});

export const screenshotState = endpoint({
  method: 'GET',
  path: '/api/admin/dockers/:id/screenshot',
  access: 'admin',
  summary: "A project's site screenshot state (poll it until `inFlight` is false). Unknown project: 404.",
  params: screenshotParams,
  answer: json(screenshotStateJson),
});

export const requestScreenshot = endpoint({
  method: 'POST',
  path: '/api/admin/dockers/:id/screenshot',
  access: 'admin',
  summary: "'ververs screenshot': 202 at once with the state (`inFlight` while the capture runs in the background); 409 without a running container, 503 when its dev server does not answer.",
  params: screenshotParams,
  answer: json(screenshotStateJson),
});

export const adminDockerEndpoints = [listAdminDockers, bulkContainerAction, showAdminDocker, changeAdminDockerState, removeAdminDocker, adoptAdminDocker, screenshotState, requestScreenshot];
