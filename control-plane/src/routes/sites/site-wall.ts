import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { presentSiteWall } from '../../presenters/present-site.ts';
import { loadSiteRecords } from '../../queries/sites.ts';

/** The wall as it goes over the wire: the JSON bytes and their strong ETag. */
export interface SiteWallBody {
  json: Buffer;
  etag: string;
}

/** Loads, presents and serialises the wall, with an ETag over the bytes. */
export async function buildSiteWall(knex: Knex): Promise<SiteWallBody> {
  const json = Buffer.from(JSON.stringify(presentSiteWall(await loadSiteRecords(knex))));
  const etag = `"${createHash('sha1').update(json).digest('base64url')}"`;
  return { json, etag };
}
