import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { presentSiteWall } from '../../presenters/present-site.ts';
import type { SiteRecord } from '../../queries/sites.ts';
import { loadSiteWallText } from '../../queries/sites.ts';
import { precompress, type PrecompressedBody } from './precompressed.ts';

/** The wall as it goes over the wire: the JSON bytes in every encoding and their strong ETag. */
export interface SiteWallBody {
  body: PrecompressedBody;
  etag: string;
}

const sha1 = (data: string | Buffer): string => createHash('sha1').update(data).digest('base64url');

/**
 * Loads the wall on every call (so a change in the database shows on the next request), but
 * presents, serialises and compresses it only when the loaded JSON differs from the last one:
 * the answer is the same for every viewer, so one build per data version serves them all.
 */
export function siteWallBuilder(knex: Knex): () => Promise<SiteWallBody> {
  let kept: { version: string; wall: SiteWallBody } | undefined;
  return async () => {
    const text = await loadSiteWallText(knex);
    const version = sha1(text);
    if (kept?.version === version) return kept.wall;
    const json = Buffer.from(JSON.stringify(presentSiteWall(JSON.parse(text) as SiteRecord[])));
    const wall = { body: await precompress(json), etag: `"${sha1(json)}"` };
    kept = { version, wall };
    return wall;
  };
}
