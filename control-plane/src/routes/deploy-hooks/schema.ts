import { z } from 'zod';

/** POST /api/hooks/deploy/{projectId}: anything that is not a project id is answered like a bad signature. */
export const hookParams = z.object({ projectId: z.coerce.number().int().positive().max(2_147_483_647) });

/** Largest push payload read (GitHub's own limit is 25 MB, but a push of a few commits is a few kB). */
export const HOOK_BODY_LIMIT = 1024 * 1024;
