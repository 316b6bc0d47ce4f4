/** The control plane's health for load balancers and operators (DESIGN.md, Operations). */
import { z } from 'zod';
import { endpoint, json } from './endpoint.ts';

const agentLinkState = z.enum(['unknown', 'reachable', 'unreachable']);

/** GET /healthz: 200 with `ok`/`degraded` while the database answers, 503 with `down` otherwise. */
export const healthJson = z.strictObject({
  status: z.enum(['ok', 'degraded', 'down']),
  database: z.enum(['up', 'down']),
  /** The first dev server's link (as before there were more); null without dev servers. */
  agent: z.strictObject({ state: agentLinkState, since: z.string() }).nullable(),
  hosts: z.array(z.strictObject({ name: z.string(), state: agentLinkState, since: z.string() })),
});
export type HealthJson = z.infer<typeof healthJson>;

export const health = endpoint({
  method: 'GET',
  path: '/healthz',
  access: 'public',
  summary: 'Healthy while the database answers (an unreachable dev server degrades, it does not make the control plane unhealthy); 503 with the same body when down. Not cached.',
  answer: json(healthJson),
});

export const healthEndpoints = [health];
