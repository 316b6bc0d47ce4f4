/** The path ids of the HTTP API: a positive integer PostgreSQL's `integer` holds, with the route's own Dutch message. */
import { z } from 'zod';

const MAX_ID = 2_147_483_647;

export const recordId = (message: string) =>
  z.coerce.number({ error: message }).int(message).positive(message).max(MAX_ID, message);

/**
 * A positive database id from a path segment or a JSON value, digits only (a string of digits
 * counts, as a select's value does); missing or empty answers `missing`, anything else `invalid`.
 */
export const databaseId = (missing: string, invalid: string) =>
  z.preprocess(
    (value) => (value === '' || value === null ? undefined : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z
      .number({ error: (issue) => (issue.input === undefined ? missing : invalid) })
      .int(invalid)
      .positive(invalid)
      .max(MAX_ID, invalid),
  );
