import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin } from './roles.ts';

/** The agent's details (versions, capabilities, host name) are for admins. */
export const mayViewAgent = (user: CurrentUser | null): boolean => isAdmin(user);

/** The status page of the dev servers (health, disks, certificates, backups) is for admins. */
export const mayViewStatus = (user: CurrentUser | null): boolean => isAdmin(user);

/** Inviting, listing and revoking dev servers' links is for admins. */
export const mayManageAgentLinks = (user: CurrentUser | null): boolean => isAdmin(user);
