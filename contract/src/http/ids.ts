/** The path ids of the HTTP API: a positive integer PostgreSQL's `integer` holds, with the route's own Dutch message. */
import { z } from 'zod';

const MAX_ID = 2_147_483_647;

export const recordId = (message: string) =>
  z.coerce.number({ error: message }).int(message).positive(message).max(MAX_ID, message);
