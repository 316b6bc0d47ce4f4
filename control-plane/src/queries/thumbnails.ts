import type { Knex } from 'knex';
import { Thumbnail } from '../models/Thumbnail.ts';

/** What serving a thumbnail needs before reading its bytes: the project's wall flags and the capture's validators. */
export interface ThumbnailHead {
  id: number;
  visible: boolean;
  validated: boolean | null;
  etag: string | null;
  captured_at: Date | string | null;
  last_error: string | null;
  has_png: boolean;
}

/** The thumbnail of the project named `name`, without its bytes (a revalidation needs none). */
export async function loadThumbnailHead(knex: Knex, name: string): Promise<ThumbnailHead | undefined> {
  return knex('projects as p')
    .join('thumbnails as t', 't.project_id', 'p.id')
    .where('p.name', name)
    .first<ThumbnailHead | undefined>(
      't.id',
      'p.visible',
      'p.validated',
      't.etag',
      't.captured_at',
      't.last_error',
      knex.raw('t.png is not null as has_png'),
    );
}

/** The stored image bytes of a thumbnail, null when it has none. */
export async function loadThumbnailPng(knex: Knex, id: number): Promise<Buffer | null> {
  const row = await Thumbnail.query(knex).findById(id).select('png');
  return row?.png ?? null;
}
