import type { SignonCredentials } from '../queries/databases.ts';

/** What phpMyAdmin's signon script gets for a redeemed ticket (POST /api/db-admin/signon). */
export function presentSignonCredentials(credentials: SignonCredentials): SignonCredentials {
  return { user: credentials.user, password: credentials.password, host: credentials.host, port: credentials.port, db: credentials.db };
}
