import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { HttpError, serviceUnavailable } from '../errors.ts';
import { MAX_DATABASES_PER_USER } from '../policies/database-policy.ts';
import { type DatabaseJson, type DatabaseRow, presentDatabase } from '../presenters/present-database.ts';
import { DATABASE_NAME_MESSAGES, databaseNameProblem } from '@devplein/contract/validation/databaseName';
import { KeyedLock } from './keyed-lock.ts';
import { userHomeHost } from '../queries/users.ts';

export interface DatabaseCommandDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link' | 'forNewUsers'>;
  secrets: SecretBox;
  logger: Logger;
}

/** Agent or database server not answering (brief: 503 with a Dutch message, nothing stored). */
export const DATABASE_SERVER_UNREACHABLE_MESSAGE = 'De databaseserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

/** A 422 about the `db` field (spec §8: shown in red as headings above the form). */
export const databaseNameRefused = (message: string): HttpError => new HttpError(422, message, { errors: { db: [message] } });

/** Fixed decision: database and account are `u{userId}_{suffix}`, so names of different students never meet. */
export const databaseNameFor = (userId: number, suffix: string): string => `u${userId}_${suffix}`;

/** One create or drop at a time per user: the name check, the agent call and the insert belong together. */
const perUser = new KeyedLock<number>();

async function rowsOf(knex: Knex, userId: number): Promise<Array<DatabaseRow & { host: string | null }>> {
  return knex('databases').select('id', 'name', 'db_user', 'password_encrypted', 'host').where('user_id', userId).orderBy('id');
}

/** The owner's databases with their passwords opened (this list only ever goes to its owner) and their server's address. */
export async function listUserDatabases(deps: DatabaseCommandDeps, userId: number): Promise<DatabaseJson[]> {
  const rows = await rowsOf(deps.knex, userId);
  return rows.map((row) => presentDatabase(row, deps.secrets.open(row.password_encrypted), deps.agents.link(row.host).studentDbHost));
}

/** An agent failure as the HTTP answer of these routes; non-agent errors pass through. */
function databaseAgentFailure(error: unknown): unknown {
  if (!(error instanceof AgentError)) return error;
  if (error.unreachable) return serviceUnavailable(DATABASE_SERVER_UNREACHABLE_MESSAGE);
  switch (error.code) {
    case 'ALREADY_EXISTS':
      return databaseNameRefused(DATABASE_NAME_MESSAGES.taken);
    case 'INVALID_ARGUMENT':
      return databaseNameRefused(DATABASE_NAME_MESSAGES.lettersOnly);
    case 'UNIMPLEMENTED':
      return new HttpError(501, 'Databases worden door de ontwikkelserver nog niet ondersteund.');
    default:
      return error;
  }
}

/**
 * The agent's create. ALREADY_EXISTS here means an orphan: the name scheme gives `u{userId}_…`
 * to this user only and, under the per-user lock, the user has no row for it — a create whose
 * answer was lost (deadline, restart). Nobody holds its password, so it is replaced once.
 */
async function createOnAgent(deps: DatabaseCommandDeps, link: AgentLink, name: string, userId: number, requestId?: string) {
  const input = { name, user: name, ownerUserId: userId };
  const databases = link.client.databases;
  try {
    return await databases.createDatabase(input, { requestId });
  } catch (error) {
    if (!(error instanceof AgentError) || error.code !== 'ALREADY_EXISTS') throw error;
    deps.logger.warn({ userId, database: name, host: link.name }, 'replacing an orphaned database (no row for it; its create answer was lost)');
    await databases.dropDatabase({ name, user: name }, { requestId });
    return databases.createDatabase(input, { requestId });
  }
}

/**
 * POST /api/user/databases: checks the name (§5, against the user's own names as §2 compares
 * them), asks the agent of the student's dev server (userHomeHost) for the database and
 * account, then stores the row with the dev server and the password
 * sealed. A refused or failed agent call stores nothing; if storing fails after the agent made
 * the database, it is dropped again so nothing is left half-made.
 */
export async function createUserDatabase(deps: DatabaseCommandDeps, userId: number, suffix: string, requestId?: string): Promise<DatabaseJson[]> {
  await perUser.run(userId, async () => {
    const existing = await rowsOf(deps.knex, userId);
    const problem = databaseNameProblem(suffix, existing.map((row) => row.name));
    if (problem) throw databaseNameRefused(problem);
    if (existing.length >= MAX_DATABASES_PER_USER) {
      throw databaseNameRefused(`Je kunt maximaal ${MAX_DATABASES_PER_USER} databases hebben. Verwijder eerst een database.`);
    }
    const name = databaseNameFor(userId, suffix);
    const link = await userHomeHost(deps.knex, deps.agents, userId);
    let created;
    try {
      created = await createOnAgent(deps, link, name, userId, requestId);
    } catch (error) {
      throw databaseAgentFailure(error);
    }
    try {
      await deps.knex('databases').insert({
        user_id: userId,
        name: created.database.name,
        db_user: created.database.user,
        password_encrypted: deps.secrets.seal(created.password),
        host: link.name,
      });
    } catch (error) {
      deps.logger.error({ err: error, userId, database: name }, 'storing a new database failed; dropping it again');
      await link.client.databases.dropDatabase({ name: created.database.name, user: created.database.user }, { requestId }).catch((dropError: unknown) => {
        deps.logger.error({ err: dropError, userId, database: name }, 'dropping the unstored database failed: remove it by hand');
      });
      throw error;
    }
    deps.logger.info({ userId, database: name, host: link.name }, 'database created');
  });
  return listUserDatabases(deps, userId);
}

/** A stored database as the drop route loads it (then authorizes it with ownsDatabase). */
export interface StoredDatabase {
  id: number;
  user_id: number;
  name: string;
  db_user: string;
  /** Its dev server; null is the first one. */
  host: string | null;
}

export async function loadDatabase(knex: Knex, id: number): Promise<StoredDatabase | undefined> {
  return knex('databases').where({ id }).first<StoredDatabase | undefined>('id', 'user_id', 'name', 'db_user', 'host');
}

/**
 * DELETE /api/user/databases/{id}, after the route authorized the row. The agent drops database
 * and account first (idempotent); only then the row goes, so a failed drop keeps the row and the
 * student can try again.
 */
export async function dropUserDatabase(deps: DatabaseCommandDeps, database: StoredDatabase, requestId?: string): Promise<DatabaseJson[]> {
  await perUser.run(database.user_id, async () => {
    try {
      await deps.agents.link(database.host).client.databases.dropDatabase({ name: database.name, user: database.db_user }, { requestId });
    } catch (error) {
      throw databaseAgentFailure(error);
    }
    await deps.knex('databases').where({ id: database.id, user_id: database.user_id }).delete();
    deps.logger.info({ userId: database.user_id, database: database.name }, 'database dropped');
  });
  return listUserDatabases(deps, database.user_id);
}
