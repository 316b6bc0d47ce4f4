import { pathOf } from '@devplein/contract/http/endpoint';
import { courseFile, level, levelCategories } from '@devplein/contract/http/levels';
import type { LevelStatus, LevelTileJson as LevelTile, LevelCategoryJson as LevelCategory, LevelJson as LevelDetail } from '@devplein/contract/levels';
import { useEndpoint } from '../endpoints.ts';
export type { LevelStatus, LevelTile, LevelCategory, LevelDetail };

/** Where a course file downloads (the server checks the level is unlocked for the student). */
export const courseFileUrl = (fileId: number): string => pathOf(courseFile, { fileId });

const logLoadFailure = (what: string) => (error: unknown) => {
  // Spec §8: a level or category load failure is only logged.
  console.error(`${what} laden mislukt:`, error instanceof Error ? error.message : error);
};

export function useLevelCategories() {
  return useEndpoint(levelCategories, {}, { onError: logLoadFailure('Levels') });
}

export function useLevel(id: string | undefined) {
  return useEndpoint(level, id === undefined ? null : { params: { id } }, {
    onError: logLoadFailure('Level'),
    shouldRetryOnError: false,
  });
}
