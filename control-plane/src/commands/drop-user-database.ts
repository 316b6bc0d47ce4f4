import { Database } from '../models/Database.ts';
import type { StoredDatabase } from '../queries/databases.ts';
import { databaseAgentFailure } from '../agent/database-agent-failure.ts';
import type { DatabaseCommandDeps } from './create-user-database.ts';

/**
 * DELETE /api/user/databases/{id}, after the route authorized the row. The agent drops database
 * and account first (idempotent); only then the row goes, so a failed drop keeps the row and the
 * student can try again.
 */
export async function dropUserDatabase(deps: DatabaseCommandDeps, database: StoredDatabase, requestId?: string): Promise<void> {
  await deps.locks.userDatabases.run(database.user_id, async () => {
    try {
      await deps.agents.link(database.host).client.databases.dropDatabase({ name: database.name, user: database.db_user }, { requestId });
    } catch (error) {
      throw databaseAgentFailure(error);
    }
    await Database.query(deps.knex).delete().where({ id: database.id, user_id: database.user_id });
    deps.logger.info({ userId: database.user_id, database: database.name }, 'database dropped');
  });
}
