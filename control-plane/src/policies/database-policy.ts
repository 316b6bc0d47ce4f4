import type { CurrentUser } from '../queries/current-user.ts';
import { isDeveloper } from './roles.ts';

/**
 * Spec §2/§6: databases are for developers only (checked on the server, whatever the UI shows).
 * Admins who are not developers are refused like students.
 */
export const mayUseDatabases = (user: CurrentUser): boolean => isDeveloper(user);

/** Only the owner may see (with its password) or drop a database; to anyone else it does not exist (404). */
export const ownsDatabase = (user: CurrentUser, database: { user_id: number }): boolean => database.user_id === user.id;

/** Databases per user: the spec names no limit; this bounds what one account can make the server hold. */
export const MAX_DATABASES_PER_USER = 10;
