import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isUniqueViolation } from './database-errors.ts';

const withCode = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('knows the ways PostgreSQL is not there', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('ECONNRESET'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('53300', 'too many connections'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('select * from "sessions" - Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed'))).toBe(true);
    // objection's DBError keeps the driver's error as nativeError.
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection'), { nativeError: withCode('57P01') }))).toBe(true);
  });

  it('leaves query errors and other failures alone', () => {
    expect(isDatabaseUnavailable(withCode('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('42P01', 'relation "nope" does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    // A fetch to another service that failed is not the database.
    expect(isDatabaseUnavailable(new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') }))).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it('knows 23505 from knex and from objection (nativeError)', () => {
    expect(isUniqueViolation(withCode('23505'))).toBe(true);
    expect(isUniqueViolation(Object.assign(new Error('duplicate key'), { nativeError: withCode('23505') }))).toBe(true);
    expect(isUniqueViolation(withCode('23503'))).toBe(false);
    expect(isUniqueViolation(Object.assign(new Error('fk'), { nativeError: withCode('23503') }))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
