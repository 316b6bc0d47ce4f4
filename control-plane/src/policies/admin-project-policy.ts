import type { CurrentUser } from '../queries/current-user.ts';
import { isAdmin, isFirstTeamOneMember } from './roles.ts';

/**
 * GET /api/admin/projects: the list of projects awaiting approval is for admins and for members
 * whose first team is team 1 (their own profile shows the number of new project requests, §6).
 */
export const mayListProjectRequests = (user: CurrentUser): boolean => isAdmin(user) || isFirstTeamOneMember(user);

/**
 * GET /api/admin/projects?all=true: all approved projects, admins only — the UI route
 * /admin/projects needs only login (spec §2), the server does not copy that.
 */
export const mayListAllProjects = (user: CurrentUser): boolean => isAdmin(user);
