/** What a request gets while PostgreSQL does not answer (restart, failover, network). */
export const DATABASE_UNAVAILABLE_MESSAGE = 'De database is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

/** Socket failures of the pg driver: the server is not there or went away mid-query. */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's own codes for "not now": class 08 (connection exception), admin/crash shutdown,
 * starting up or shutting down (57P01-57P03), and too many connections.
 */
const serverCodes = /^(08\d{3}|57P0[123]|53300)$/;

/** pg's messages for a connection the server closed, which carry no code (knex puts the SQL in front). */
const terminated = /Connection terminated|Client has encountered a connection error/;

/**
 * True when `error` means the database could not be reached, as opposed to a query that failed:
 * such a request is answered 503 (and retried by the user), never 500. knex hands the pg
 * driver's error on as it is (a connect failure is net's error; with several addresses an
 * AggregateError of them). Only the error itself is read, not its `cause`: a failed fetch
 * elsewhere (TypeError with a socket error as cause) is not the database.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailable(error, 0);
}

function unavailable(error: unknown, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 2) return false;
  const { code, name, message, errors, nativeError } = error as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown; nativeError?: unknown };
  if (typeof code === 'string' && (socketCodes.has(code) || serverCodes.test(code))) return true;
  // objection (Model.query) wraps PostgreSQL's errors in a DBError without the code: read the driver's.
  if (nativeError !== undefined && unavailable(nativeError, depth + 1)) return true;
  // knex could not get a connection from its pool in time (every connection attempt hung or failed).
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && terminated.test(message)) return true;
  return Array.isArray(errors) && errors.some((member) => unavailable(member, depth + 1));
}

/**
 * True when `error` is PostgreSQL's unique violation (23505), from knex as the driver raised it or
 * from objection (Model.query), which wraps it and keeps the driver's error as `nativeError`.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, nativeError } = error as { code?: unknown; nativeError?: unknown };
  return code === '23505' || (typeof nativeError === 'object' && nativeError !== null && (nativeError as { code?: unknown }).code === '23505');
}
