/*
 * Who may do what with licences beyond the endpoints' declared access (contract/src/http/licenses.ts:
 * every activated account requests its own, admins approve).
 */

/** A licence is its owner's: to anyone else it does not exist (404). */
export const ownsLicense = (user: { id: number }, license: { user_id: number }): boolean => license.user_id === user.id;

/** Once approved, a request is the admin's decision: the owner can no longer withdraw it. */
export const mayWithdrawLicense = (license: { approved_at: Date | string | null }): boolean => license.approved_at === null;

/** Requests waiting for approval per user: enough for real needs, a bound against a runaway form. */
export const MAX_PENDING_LICENSES_PER_USER = 10;
