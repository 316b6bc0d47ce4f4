import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin, isVerified } from './roles.ts';

/**
 * Every activated user may search people: students pick their project members with it (spec §5
 * docker form). The caller's route has already answered 401/403 for the others.
 */
export const maySearchUsers = (user: CurrentUser | null): boolean => isVerified(user);

/**
 * Not-activated and disabled accounts show up only for an admin who asks for them (`all`); a
 * student's `?all=true` (the docker form sends it when editing) is simply ignored.
 */
export const mayFindInactiveUsers = (user: CurrentUser, askedForAll: boolean): boolean => askedForAll && isAdmin(user);

/** Admins see each result's cohort, to tell two students with the same name apart. */
export const maySeeCohortsInSearch = (user: CurrentUser): boolean => isAdmin(user);
