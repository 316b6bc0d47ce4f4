/** What a request gets while PostgreSQL does not answer (restart, failover, network). */
export const DATABASE_UNAVAILABLE_MESSAGE = 'De database is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

/** Socket failures of the pg driver: the server is not there or went away mid-query. */
const socketCodes: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

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
  const { code, name, message, errors, nativeError } = error as {
    code?: unknown; name?: unknown; message?: unknown; errors?: unknown; nativeError?: unknown;
  };
  // A model query throws objection's DBError: pg's own error (and its code) is on nativeError.
  if (nativeError !== undefined) return unavailable(nativeError, depth + 1);
  if (typeof code === 'string' && (socketCodes.has(code) || serverCodes.test(code))) return true;
  // knex could not get a connection from its pool in time (every connection attempt hung or failed).
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && terminated.test(message)) return true;
  return Array.isArray(errors) && errors.some((member) => unavailable(member, depth + 1));
}

/** pg's error behind `error`: itself for knex, `nativeError` for a model query (objection's DBError). */
function driverError(error: unknown): { code?: unknown; constraint?: unknown } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { nativeError } = error as { nativeError?: unknown };
  return typeof nativeError === 'object' && nativeError !== null ? nativeError : error;
}

/** True for PostgreSQL's unique violation (23505), from knex or from a model query. */
export function isUniqueViolation(error: unknown): boolean {
  return driverError(error)?.code === '23505';
}

/** The unique constraint a write ran into ('' when pg did not name it); null when it was no unique violation. */
export function uniqueConstraintOf(error: unknown): string | null {
  if (!isUniqueViolation(error)) return null;
  const { constraint } = driverError(error) ?? {};
  return typeof constraint === 'string' ? constraint : '';
}
