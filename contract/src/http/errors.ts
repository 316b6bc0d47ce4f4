/** The body of every answer outside 2xx that the control plane makes itself (errors.ts, HttpError). */
import { z } from 'zod';

export const errorJson = z.object({
  /** Dutch, for the user as is. */
  message: z.string(),
  /** Machine-readable reason, e.g. 'not_verified' on a 403. */
  reason: z.string().optional(),
  /** A 422's field errors: field → Dutch messages. */
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorJson = z.infer<typeof errorJson>;
