import { DBError, UniqueViolationError } from 'objection';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isUniqueViolation, uniqueConstraintOf } from './database-errors.ts';

const withCode = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });
/** What a model query (`Project.query(trx)…`) throws: objection wraps pg's error, the code only on `nativeError`. */
// objection's typings give these classes Error's constructor; at run time they take db-errors' arguments.
type WrapperArgs = { nativeError: Error; client: string; table?: string; columns?: string[]; constraint?: string };
const DBErrorOf = DBError as unknown as new (args: WrapperArgs) => Error;
const UniqueViolationErrorOf = UniqueViolationError as unknown as new (args: WrapperArgs) => Error;
const wrapped = (nativeError: Error): Error => new DBErrorOf({ nativeError, client: 'postgres' });

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
  });

  it('sees through objection\'s wrapper (a model query during an outage is a 503 too)', () => {
    expect(isDatabaseUnavailable(wrapped(withCode('57P01', 'terminating connection due to administrator command')))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(withCode('ECONNREFUSED')))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(withCode('23505')))).toBe(false);
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

describe('isUniqueViolation and uniqueConstraintOf', () => {
  const duplicate = Object.assign(withCode('23505', 'duplicate key value violates unique constraint "projects_domain_unique"'), {
    constraint: 'projects_domain_unique',
  });

  it('know a unique violation from knex and from a model query', () => {
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(uniqueConstraintOf(duplicate)).toBe('projects_domain_unique');
    const fromModel = new UniqueViolationErrorOf({
      nativeError: duplicate, client: 'postgres', table: 'projects', columns: ['domain'], constraint: 'projects_domain_unique',
    });
    expect(fromModel).toBeInstanceOf(UniqueViolationError);
    expect(isUniqueViolation(fromModel)).toBe(true);
    expect(uniqueConstraintOf(fromModel)).toBe('projects_domain_unique');
    expect(isUniqueViolation(wrapped(duplicate))).toBe(true);
  });

  it('say no to anything else', () => {
    expect(isUniqueViolation(withCode('23503'))).toBe(false);
    expect(isUniqueViolation(wrapped(withCode('23503')))).toBe(false);
    expect(isUniqueViolation(new Error('boom'))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
    expect(uniqueConstraintOf(new Error('boom'))).toBeNull();
    expect(uniqueConstraintOf(withCode('23505'))).toBe('');
  });
});
