import { z } from 'zod';

/** pusher-js posts these form-encoded. */
export const channelAuthBody = z.object({
  socket_id: z.string().regex(/^\d+\.\d+$/, 'Ongeldige socket.'),
  channel_name: z.string().min(1).max(200),
});

export const userAuthBody = z.object({
  socket_id: z.string().regex(/^\d+\.\d+$/, 'Ongeldige socket.'),
});
