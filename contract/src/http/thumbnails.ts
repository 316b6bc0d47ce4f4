/** The wall's pictures (spec §2 Websites), at the old site's addresses outside /api. */
import { z } from 'zod';
import { endpoint, file } from './endpoint.ts';

/** `{site name}_s.png`: the small thumbnail of a site (a site name is a-z and hyphens, at most 63 long). */
export const SMALL_THUMBNAIL_FILE = /^[a-z][a-z-]{1,62}_s\.png$/;

export const smallThumbnail = endpoint({
  method: 'GET',
  path: '/misc/browserimg2/small/:file',
  access: 'public',
  summary:
    "A visible site's stored thumbnail (the old site's address), with ETag and Last-Modified and a short max-age. A bad name or a site without a picture is a plain-text 404, like a missing file, never a 422.",
  // A name of the wrong shape reads as no name (never a 422): the route answers 404 for it like
  // for any name that is no site's.
  params: z.object({ file: z.string().regex(SMALL_THUMBNAIL_FILE).catch('') }),
  answer: file('image/png'),
});

export const thumbnailEndpoints = [smallThumbnail];
