import type { CurrentUser } from '../auth/current-user.ts';
import { isDeveloper } from './roles.ts';

/**
 * Spec §2/§6: the VPN is for developers only (checked on the server, whatever the UI shows).
 * Admins who are not developers are refused like students.
 */
export const mayUseVpn = (user: CurrentUser): boolean => isDeveloper(user);

/** A configuration file (private key inside) goes to its owner only; to anyone else it does not exist (404). */
export const ownsVpnConfig = (user: CurrentUser, config: { user_id: number }): boolean => config.user_id === user.id;
