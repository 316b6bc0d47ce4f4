import useSWR from 'swr';
import { apiFetcher } from '../client.ts';

/** Status of a per-student level; students normally see 'locked' or 'success', 'open' is shown unlocked. */
export type LevelStatus = 'locked' | 'open' | 'success';

/**
 * One tile of the Levels screen. `id` null is a placeholder for a level that does not exist
 * yet for this student (title '-', locked, not clickable).
 */
export interface LevelTile {
  id: number | null;
  number: number;
  /** First course title of the level's content (shown bottom right), or '-'. */
  title: string;
  status: LevelStatus;
  content: { title: string } | null;
}

/** GET /api/level/categories/index: a category with the signed-in user's tiles 1..shownNumber. */
export interface LevelCategory {
  id: number;
  title: string;
  /** The level count teachers set. */
  number: number;
  /** Tiles shown to this user (spec §9: the 16-level category shows 10 outside SD20/SD21). */
  shownNumber: number;
  icons: boolean;
  levels: LevelTile[];
}

/** GET /api/level/{id}: a level with its courses; texts are Markdown. */
export interface LevelDetail {
  id: number;
  number: number;
  status: LevelStatus;
  category: { id: number; title: string };
  content: { title: string } | null;
  courses: Array<{
    id: number;
    title: string;
    texts: Array<{ title: string; text: string }>;
    files: Array<{ id: number; title: string; type: string }>;
  }>;
}

export const LEVEL_CATEGORIES_KEY = '/api/level/categories/index';

export const levelKey = (id: string | number): string => `/api/level/${encodeURIComponent(String(id))}`;

/** Where a course file downloads (the server checks the level is unlocked for the student). */
export const courseFileUrl = (fileId: number): string => `/api/level/files/${fileId}`;

const logLoadFailure = (what: string) => (error: unknown) => {
  // Spec §8: a level or category load failure is only logged.
  console.error(`${what} laden mislukt:`, error instanceof Error ? error.message : error);
};

export function useLevelCategories() {
  return useSWR<LevelCategory[]>(LEVEL_CATEGORIES_KEY, apiFetcher, { onError: logLoadFailure('Levels') });
}

export function useLevel(id: string | undefined) {
  return useSWR<LevelDetail>(id === undefined ? null : levelKey(id), apiFetcher, {
    onError: logLoadFailure('Level'),
    shouldRetryOnError: false,
  });
}
