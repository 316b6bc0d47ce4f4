import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { Database } from '../models/Database.ts';
import { MAX_DATABASES_PER_USER } from '../policies/database-policy.ts';
import { loadUserDatabases } from '../queries/databases.ts';
import { databaseAgentFailure, databaseNameRefused } from '../agent/database-agent-failure.ts';
import { databaseNameProblem } from '@devplein/contract/validation/databaseName';
import type { AppLocks } from '../app-context.ts';
import { userHomeHost } from '../queries/users.ts';

export interface DatabaseCommandDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link' | 'forNewUsers'>;
  secrets: SecretBox;
  logger: Logger;
  /** `userDatabases`: one create or drop at a time per user (the name check, the agent call and the insert belong together). */
  locks: Pick<AppLocks, 'userDatabases'>;
}

/** Fixed decision: database and account are `u{userId}_{suffix}`, so names of different students never meet. */
export const databaseNameFor = (userId: number, suffix: string): string => `u${userId}_${suffix}`;

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
export async function createUserDatabase(deps: DatabaseCommandDeps, userId: number, suffix: string, requestId?: string): Promise<void> {
  await deps.locks.userDatabases.run(userId, async () => {
    const existing = await loadUserDatabases(deps.knex, userId);
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
      await Database.query(deps.knex).insert({
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
}
