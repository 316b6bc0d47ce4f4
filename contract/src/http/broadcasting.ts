/**
 * The realtime socket's authorization (spec §7/§9, DESIGN.md Realtime): pusher-js posts these
 * form-encoded before it joins a private channel or signs the user in on the socket.
 */
import { z } from 'zod';
import { endpoint, json } from './endpoint.ts';

const socketId = z.string().regex(/^\d+\.\d+$/, 'Ongeldige socket.');

export const authorizeChannel = endpoint({
  method: 'POST',
  path: '/broadcasting/auth',
  access: 'active',
  summary: "The signature for a private channel: a container's channel for the project's members and admins; 403 for any other channel or caller.",
  body: z.object({ socket_id: socketId, channel_name: z.string().min(1).max(200) }),
  answer: json(z.strictObject({ auth: z.string(), channel_data: z.string().optional(), shared_secret: z.string().optional() })),
});

export const authenticateSocketUser = endpoint({
  method: 'POST',
  path: '/broadcasting/user-auth',
  access: 'active',
  summary: 'Signs the user in on the socket (id and name as user_info).',
  body: z.object({ socket_id: socketId }),
  answer: json(z.strictObject({ auth: z.string(), user_data: z.string() })),
});

export const broadcastingEndpoints = [authorizeChannel, authenticateSocketUser];
