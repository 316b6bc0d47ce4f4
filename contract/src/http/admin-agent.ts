/** The dev servers' agents with their Info (versions, capabilities, host name), for admins. */
import { adminAgentJson } from '../status.ts';
import { endpoint, json } from './endpoint.ts';

export const adminAgent = endpoint({
  method: 'GET',
  path: '/api/admin/agent',
  access: 'admin',
  summary: "Every dev server's agent (`hosts`, its Info asked live, the last known one when it does not answer), and at the top level the first one's.",
  answer: json(adminAgentJson),
});

export const adminAgentEndpoints = [adminAgent];
