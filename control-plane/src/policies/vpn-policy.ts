import type { CurrentUser } from '../queries/current-user.ts';

// Spec §2/§6: the VPN is for developers only, admins who are not developers refused like
// students: the endpoints' declared access (contract/src/http/vpn.ts), checked by handle().

/** A configuration file (private key inside) goes to its owner only; to anyone else it does not exist (404). */
export const ownsVpnConfig = (user: CurrentUser, config: { user_id: number }): boolean => config.user_id === user.id;
