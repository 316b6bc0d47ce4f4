import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppServices } from '../app-context.ts';
import type { ScreenshotState } from '@devplein/contract/dockers';

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

/** A thumbnail with its bytes (null when none is stored) and its ETag, the stored one or one made from the bytes. */
export interface StoredThumbnail extends ThumbnailHead {
  png: Buffer | null;
}

/**
 * The thumbnail of the project named `name`, bytes included, or null when it has none. One query,
 * plain knex on purpose: the wall asks for many at once (a model instance per image cost the load
 * bench ~10 %), and the answer is kept in memory (IdentityCache.thumbnail), so a revalidation
 * that needs no bytes is rarely the one that reads them.
 */
export async function loadStoredThumbnail(knex: Knex, name: string): Promise<StoredThumbnail | null> {
  const row = await knex('projects as p')
    .join('thumbnails as t', 't.project_id', 'p.id')
    .where('p.name', name)
    .first<Omit<StoredThumbnail, 'has_png'> | undefined>('t.id', 'p.visible', 'p.validated', 't.etag', 't.captured_at', 't.last_error', 't.png');
  if (!row) return null;
  const etag = row.etag ?? (row.png ? createHash('sha1').update(row.png).digest('base64url') : null);
  return { ...row, etag, has_png: row.png !== null };
}

/** A thumbnails row's columns the capture state is made of. */
export interface ThumbnailStateRow {
  project_id: number;
  captured_at: Date | string | null;
  last_error: string | null;
  last_attempt_at: Date | string | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** The capture state of a project as the admin dockers table shows it. */
export function screenshotState(projectId: number, row: ThumbnailStateRow | undefined, inFlight: boolean): ScreenshotState {
  return {
    projectId,
    capturedAt: row ? iso(row.captured_at) : null,
    lastAttemptAt: row ? iso(row.last_attempt_at) : null,
    lastError: row?.last_error ?? null,
    inFlight,
  };
}

/**
 * Capture states of these projects (one query). Which captures are in flight is read before the
 * rows: a capture that ends while the query runs then still counts as in flight (the caller asks
 * again and gets its outcome), never "done" beside the row from before it.
 */
export async function loadScreenshotStates(knex: Knex, capturer: Pick<AppServices['thumbnails'], 'isInFlight'> | undefined, projectIds: readonly number[]): Promise<Map<number, ScreenshotState>> {
  const ids = [...new Set(projectIds)];
  if (ids.length === 0) return new Map();
  const inFlight = new Set(ids.filter((id) => capturer?.isInFlight(id) ?? false));
  const rows = await knex('thumbnails').whereIn('project_id', ids).select<ThumbnailStateRow[]>('project_id', 'captured_at', 'last_error', 'last_attempt_at');
  const byProject = new Map(rows.map((row) => [Number(row.project_id), row]));
  return new Map(ids.map((id) => [id, screenshotState(id, byProject.get(id), inFlight.has(id))]));
}
