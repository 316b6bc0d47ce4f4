import type {
  CreateDatabaseResponse,
  DatabaseServiceClient,
  DropDatabaseResponse,
  ListDatabasesResponse,
  LockAccountsResponse,
  UnlockAccountsResponse,
} from '@devplein/proto/database';
import { accountLockView, databaseView, type DatabaseView, type AccountLockView, type DroppedDatabaseView, type CreatedDatabaseView, type CreateDatabaseInput } from '../database-views.ts';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';

/**
 * DatabaseService: one MySQL/MariaDB database plus an account with rights on it only. Rejects
 * with AgentError: INVALID_ARGUMENT (bad name), ALREADY_EXISTS, UNAVAILABLE (agent or database
 * server not answering).
 */
export interface DatabaseApi {
  createDatabase(input: CreateDatabaseInput, options?: AgentCallOptions): Promise<CreatedDatabaseView>;
  dropDatabase(target: { name: string; user: string }, options?: AgentCallOptions): Promise<DroppedDatabaseView>;
  listDatabases(namePrefix?: string, options?: AgentCallOptions): Promise<DatabaseView[]>;
  /** LockAccounts (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  lockAccounts(users: string[], options?: AgentCallOptions): Promise<AccountLockView[]>;
  /** UnlockAccounts (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  unlockAccounts(users: string[], options?: AgentCallOptions): Promise<AccountLockView[]>;
}

/** DatabaseService over the link: students' databases and their accounts. */
export function createDatabaseClient(client: DatabaseServiceClient, unary: UnaryCall, deadlines: AgentDeadlines): DatabaseApi {
  return {
    async createDatabase(input, callOptions) {
      const request = { name: input.name, user: input.user, ownerUserId: input.ownerUserId };
      const response = await unary<CreateDatabaseResponse>(
        'CreateDatabase',
        (md, opts, cb) => client.createDatabase(request, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { database: databaseView(response.database, { name: input.name, user: input.user }), password: response.password };
    },
    async dropDatabase(target, callOptions) {
      const response = await unary<DropDatabaseResponse>(
        'DropDatabase',
        (md, opts, cb) => client.dropDatabase({ name: target.name, user: target.user }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { databaseDropped: response.databaseDropped, userDropped: response.userDropped };
    },
    async listDatabases(namePrefix, callOptions) {
      const response = await unary<ListDatabasesResponse>(
        'ListDatabases',
        (md, opts, cb) => client.listDatabases({ namePrefix: namePrefix ?? '' }, md, opts, cb),
        callOptions,
      );
      return response.databases.map((database) => databaseView(database, { name: '', user: '' }));
    },
    async lockAccounts(users, callOptions) {
      const response = await unary<LockAccountsResponse>(
        'LockAccounts',
        (md, opts, cb) => client.lockAccounts({ users: [...users] }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return response.accounts.map(accountLockView);
    },
    async unlockAccounts(users, callOptions) {
      const response = await unary<UnlockAccountsResponse>(
        'UnlockAccounts',
        (md, opts, cb) => client.unlockAccounts({ users: [...users] }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return response.accounts.map(accountLockView);
    },
  };
}
