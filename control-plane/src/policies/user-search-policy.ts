/* Who finds whom in POST /api/users/search (every activated user may search: contract/src/http/user-search.ts). */
import type { CurrentUser } from '../queries/current-user.ts';
import { isAdmin } from './roles.ts';

/**
 * Not-activated and disabled accounts show up only for an admin who asks for them (`all`); a
 * student's `?all=true` (the docker form sends it when editing) is simply ignored.
 */
export const mayFindInactiveUsers = (user: CurrentUser, askedForAll: boolean): boolean => askedForAll && isAdmin(user);

/** Admins see each result's cohort, to tell two students with the same name apart. */
export const maySeeCohortsInSearch = (user: CurrentUser): boolean => isAdmin(user);
