import type { LevelStatus } from '@devplein/contract/levels';
import type { LevelTileJson, LevelCategoryJson, LevelCategoryProgressJson } from '@devplein/contract/levels';
export type { LevelTileJson, LevelCategoryJson, LevelCategoryProgressJson };

/** Cohorts that still follow the long (16-level) version of the category with 16 levels (§9). */
const LONG_TRACK_COHORTS: readonly string[] = ['SD20', 'SD21'];

/**
 * Spec §9: the category with number 16 counts as 10 levels unless the user's cohort is SD20 or
 * SD21 (later cohorts follow a shortened programme). Every other category shows its number.
 */
export function shownLevelCount(categoryNumber: number, cohort: string | null): number {
  if (categoryNumber === 16 && !(cohort !== null && LONG_TRACK_COHORTS.includes(cohort))) return 10;
  return categoryNumber;
}

interface CategoryInput {
  id: number;
  title: string;
  number: number;
  icons: boolean;
}

interface LevelInput {
  id: number;
  level_category_id: number;
  number: number;
  status: LevelStatus;
  content_title: string | null;
  first_course_title: string | null;
}

/** Categories with tiles 1..shown count; levels beyond that count are not shown. */
export function presentLevelCategories(
  categories: readonly CategoryInput[],
  levels: readonly LevelInput[],
  cohort: string | null,
): LevelCategoryJson[] {
  const levelByKey = new Map(levels.map((level) => [`${level.level_category_id}:${level.number}`, level]));
  return categories.map((category) => {
    const shownNumber = shownLevelCount(category.number, cohort);
    const tiles: LevelTileJson[] = [];
    for (let number = 1; number <= shownNumber; number += 1) {
      const level = levelByKey.get(`${category.id}:${number}`);
      tiles.push(
        level
          ? {
              id: level.id,
              number,
              title: level.first_course_title ?? level.content_title ?? '-',
              status: level.status,
              content: level.content_title === null ? null : { title: level.content_title },
            }
          : { id: null, number, title: '-', status: 'locked', content: null },
      );
    }
    return { id: category.id, title: category.title, number: category.number, shownNumber, icons: category.icons, levels: tiles };
  });
}

/**
 * Finished levels per category for a profile. Users without any level (teachers, students not
 * in the level programme) get an empty list, so the profile shows no progress block for them.
 */
export function presentLevelProgress(
  categories: readonly CategoryInput[],
  levels: ReadonlyArray<{ level_category_id: number; number: number; status: LevelStatus }>,
  cohort: string | null,
): LevelCategoryProgressJson[] {
  if (levels.length === 0) return [];
  return categories.map((category) => {
    const number = shownLevelCount(category.number, cohort);
    const finished = levels.filter(
      (level) => level.level_category_id === category.id && level.status === 'success' && level.number <= number,
    ).length;
    return { id: category.id, title: category.title, finished, number };
  });
}
