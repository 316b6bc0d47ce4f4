import { z } from 'zod';
import { SMALL_THUMBNAIL_FILE } from '@devplein/contract/http/thumbnails';

/** A project name as the docker form allows it (a-z and hyphen, spec §5), at most 63 long. */
export const PROJECT_NAME = /^[a-z][a-z-]{1,62}$/;

/** `{site name}_s.png`: the small thumbnail of a site (spec §2 Websites). */
export const smallThumbnailParams = z.object({
  file: z
    .string()
    .regex(SMALL_THUMBNAIL_FILE, 'Ongeldige bestandsnaam.')
    .transform((file) => file.slice(0, -'_s.png'.length))
    .pipe(z.string().regex(PROJECT_NAME)),
});
