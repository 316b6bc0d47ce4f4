/** A developer's own MySQL/MariaDB databases (spec §7): /api/user/databases. Every answer is the updated list. */
import { z } from 'zod';
import { databaseJson } from '../access.ts';
import { DATABASE_NAME_MESSAGES } from '../validation/databaseName.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const REFUSAL = 'Databases zijn alleen voor ontwikkelaars.';
const databaseList = json(z.array(databaseJson));

/** A database's id in a path (here and in phpMyAdmin's sign-on). */
export const databaseIdParams = z.object({ id: recordId('Ongeldig databasenummer.') });

export const listDatabases = endpoint({
  method: 'GET',
  path: '/api/user/databases',
  access: 'developer',
  refusal: REFUSAL,
  summary: "The developer's databases with their accounts and passwords.",
  answer: databaseList,
});

export const createDatabase = endpoint({
  method: 'POST',
  path: '/api/user/databases',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'Makes a database and its account on the dev server.',
  /**
   * The student's 1–3 letters, lowercased (spec §5 "forced lowercase"). The name rule itself
   * (databaseNameProblem) runs in the command, against the user's existing names; nothing is
   * stripped here, so the server never creates a name the student did not send.
   */
  body: z.object({
    db: z
      .string({ error: DATABASE_NAME_MESSAGES.empty })
      .max(100, DATABASE_NAME_MESSAGES.tooLong)
      .transform((value) => value.toLowerCase()),
  }),
  answer: databaseList,
});

export const dropDatabase = endpoint({
  method: 'DELETE',
  path: '/api/user/databases/:id',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'Drops one of the developer’s own databases and its account.',
  params: databaseIdParams,
  answer: databaseList,
});

export const databaseEndpoints = [listDatabases, createDatabase, dropDatabase];
