import useSWR from 'swr';
import { apiFetcher } from '../client.ts';
import type { LevelStatus, LevelTileJson as LevelTile, LevelCategoryJson as LevelCategory, LevelJson as LevelDetail } from '@devplein/contract/levels';
export type { LevelStatus, LevelTile, LevelCategory, LevelDetail };

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
