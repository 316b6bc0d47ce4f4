import type { CurrentUser } from '../queries/current-user.ts';
import type { LevelStatus } from '@devplein/contract/levels';
import { canSeeLevels, isAdmin } from './roles.ts';

/**
 * Who may open the level screens at all: students the Levels menu is for (§6), and admins
 * (teachers look at levels and the category list).
 */
export const mayViewLevels = (user: CurrentUser): boolean => isAdmin(user) || canSeeLevels(user);

/**
 * Whether `viewer` may see a given per-student level record at all. Someone else's level is
 * answered as "not found" (404), so students cannot probe which level ids exist.
 */
export const mayFindLevel = (viewer: CurrentUser, level: { user_id: number }): boolean =>
  isAdmin(viewer) || level.user_id === viewer.id;

/**
 * The content (courses, texts, files) of a locked level stays closed to students, whatever the
 * UI does; 'open' and 'success' are readable. Admins read every level.
 */
export const mayReadLevelContent = (viewer: CurrentUser, level: { status: LevelStatus }): boolean =>
  isAdmin(viewer) || level.status !== 'locked';

/** The message of the 403 for a locked level. */
export const LOCKED_LEVEL_MESSAGE = 'Dit level is nog op slot. Je docent zet het open zodra je eraan mag beginnen.';

