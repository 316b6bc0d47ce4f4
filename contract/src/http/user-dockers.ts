/**
 * The student's containers (spec §7): the dockers cards, their actions, logs (text, JSON, a
 * live follow as server-sent events), live use, and pulling the project's image (NDJSON).
 * Every endpoint is for activated users; the route lets through members of the project and
 * admins, and answers 404 to everyone else.
 */
import { z } from 'zod';
import { containerStatsJson } from '../container-stats.ts';
import { CONTAINER_ACTIONS, userDockerJson } from '../dockers.ts';
import { IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE } from '../validation/imageReference.ts';
import { endpoint, file, json, ndjson, sse } from './endpoint.ts';
import { recordId } from './ids.ts';

export const projectId = recordId('Ongeldig projectnummer.');

/** PUT /api/user/dockers/{projectId} and the other project routes. */
export const projectIdParams = z.object({ projectId });

/** A container (= project) name in a path. */
export const containerNameParams = z.object({
  name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, 'Ongeldige containernaam.'),
});

const flag = z.enum(['1', 'true', '0', 'false', '']).optional().transform((value) => value === '1' || value === 'true');
const tail = (min: number) => {
  const message = `tail moet een getal van ${min} tot 5000 zijn.`;
  return z.coerce.number({ error: message }).int(message).min(min, message).max(5000, message);
};

/** One line of a container's log. */
export const logLineJson = z.strictObject({
  stream: z.enum(['stdout', 'stderr']),
  text: z.string(),
  /** ISO time Docker gave the line; null when it gave none. */
  time: z.string().nullable(),
});
export type LogLineJson = z.infer<typeof logLineJson>;

/** One line of an image pull: Docker's progress, then `{done: true}` or `{error}` (Dutch) as the last. */
export const pullLineJson = z.union([
  z.strictObject({ status: z.string(), layerId: z.string(), current: z.number(), total: z.number(), progress: z.string() }),
  z.strictObject({ done: z.literal(true) }),
  z.strictObject({ error: z.string() }),
]);
export type PullLineJson = z.infer<typeof pullLineJson>;

const cards = json(z.array(userDockerJson));

export const listUserDockers = endpoint({
  method: 'GET',
  path: '/api/user/dockers',
  access: 'active',
  summary: "The signed-in user's projects, each with its container's state (the dockers cards).",
  answer: cards,
});

export const createUserDocker = endpoint({
  method: 'POST',
  path: '/api/user/dockers',
  access: 'active',
  summary: "Makes an approved project's container (and starts its first git deploy); answers its card.",
  body: z.object({ id: projectId }),
  answer: cards,
});

export const changeUserDocker = endpoint({
  method: 'PUT',
  path: '/api/user/dockers/:projectId',
  access: 'active',
  summary: 'Starts, stops, pauses, unpauses or restarts the project’s container; answers its card.',
  params: projectIdParams,
  query: z.object({ action: z.enum(CONTAINER_ACTIONS, { error: 'Kies start, stop, pause, unpause of restart.' }) }),
  answer: cards,
});

export const containerLogs = endpoint({
  method: 'GET',
  path: '/api/user/container/:name',
  access: 'active',
  summary: "The container's last log lines: text (a download with ?download=1, without colour codes), or JSON with ?format=json.",
  params: containerNameParams,
  query: z.object({
    tail: tail(1).default(500),
    format: z.enum(['text', 'json'], { error: 'Gebruik format=text of format=json.' }).default('text'),
    download: flag,
  }),
  answer: file('text/plain', z.strictObject({ lines: z.array(logLineJson) })),
});

export const followContainerLogs = endpoint({
  method: 'GET',
  path: '/api/user/container/:name/follow',
  access: 'active',
  summary: "The container's log as it is written, as server-sent events (a few per user at a time).",
  params: containerNameParams,
  query: z.object({ tail: tail(0).default(0) }),
  answer: sse(logLineJson),
});

export const containerStats = endpoint({
  method: 'GET',
  path: '/api/user/container/:name/stats',
  access: 'active',
  summary: "A running container's live use (CPU, memory, network, disk) with five minutes of history.",
  params: containerNameParams,
  answer: json(containerStatsJson),
});

export const pullProjectImage = endpoint({
  method: 'POST',
  path: '/api/user/dockers_images',
  access: 'active',
  summary: "Pulls the project's own image on its dev server, answering Docker's progress as NDJSON.",
  body: z.object({
    image: z.string({ error: IMAGE_REFERENCE_MESSAGE }).trim().max(255, IMAGE_REFERENCE_MESSAGE).regex(IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE),
    project_id: projectId,
  }),
  answer: ndjson(pullLineJson),
});

export const userDockerEndpoints = [listUserDockers, createUserDocker, changeUserDocker, containerLogs, followContainerLogs, containerStats, pullProjectImage];
