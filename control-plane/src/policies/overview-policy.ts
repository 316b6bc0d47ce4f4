import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin } from './roles.ts';

/** The teachers' overview (/admin/overzicht: host charts, idle auto-stops, projects per cohort) is for admins. */
export const mayViewOverview = (user: CurrentUser | null): boolean => isAdmin(user);
