import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { DatabaseServiceService, type DatabaseServiceServer } from '@devplein/proto/database';
import type { AgentConfig } from '../config.ts';
import { type AccountLockResult, DatabaseServerUnavailableError, StudentDatabaseExistsError, StudentDatabases } from '../drivers/mysql/student-databases.ts';
import { StudentNameError } from '../drivers/mysql/student-database-names.ts';
import { callLogger } from '../interceptors/logging.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

export interface DatabaseServiceOptions {
  config: Pick<AgentConfig, 'mysqlUrl' | 'mysqlUserHost' | 'mysqlMaxUserConnections'>;
  logger: Logger;
}

/** The driver's refusals as gRPC codes (contract: INVALID_ARGUMENT, ALREADY_EXISTS, UNAVAILABLE). */
function statusOf(error: unknown): grpc.status | undefined {
  if (error instanceof StudentNameError) return grpc.status.INVALID_ARGUMENT;
  if (error instanceof StudentDatabaseExistsError) return grpc.status.ALREADY_EXISTS;
  if (error instanceof DatabaseServerUnavailableError) return grpc.status.UNAVAILABLE;
  return undefined;
}

function databaseFailure(error: unknown): FailureStatus | undefined {
  const code = statusOf(error);
  return code === undefined ? undefined : { code, details: (error as Error).message };
}

/**
 * DatabaseService: students' MySQL databases and accounts on this dev server (see
 * drivers/mysql/student-databases.ts for what a create and a drop do).
 */
export class DatabaseServiceImpl {
  readonly databases: StudentDatabases;

  constructor(private readonly options: DatabaseServiceOptions) {
    this.databases = new StudentDatabases({
      url: options.config.mysqlUrl,
      userHost: options.config.mysqlUserHost,
      maxUserConnections: options.config.mysqlMaxUserConnections,
      logger: options.logger,
    });
  }

  /**
   * At agent start: existing student accounts get the connection limit (best effort: a server
   * that does not answer now is logged; unlock and create apply it later too).
   */
  async start(): Promise<void> {
    if (!this.options.config.mysqlUrl) return;
    try {
      await this.databases.applyConnectionLimit();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not give the student accounts their connection limit; retried at the next start');
    }
  }

  addToServer(server: grpc.Server): void {
    const { logger } = this.options;
    // Synchronous throws (name checks) become rejections too.
    const { reply } = grpcReply({ logger, knownFailures: databaseFailure });
    const handlers: DatabaseServiceServer = {
      createDatabase: (call, callback) =>
        reply(
          call,
          callback,
          async (log) => {
            const { database, password } = await this.databases.create(call.request.name, call.request.user);
            log.info({ database: database.name, ownerUserId: call.request.ownerUserId }, 'database made for a student');
            return { database, password };
          },
          'CreateDatabase',
        ),
      dropDatabase: (call, callback) => reply(call, callback, () => this.databases.drop(call.request.name, call.request.user), 'DropDatabase'),
      listDatabases: (call, callback) => reply(call, callback, async () => ({ databases: await this.databases.list(call.request.namePrefix) }), 'ListDatabases'),
      lockAccounts: (call, callback) => reply(call, callback, () => this.changeAccounts(call, 'lock'), 'LockAccounts'),
      unlockAccounts: (call, callback) => reply(call, callback, () => this.changeAccounts(call, 'unlock'), 'UnlockAccounts'),
    };
    server.addService(DatabaseServiceService, handlers);
  }

  private async changeAccounts(call: { request: { users: string[] }; metadata: grpc.Metadata }, change: 'lock' | 'unlock'): Promise<{ accounts: AccountLockResult[] }> {
    const accounts = await this.databases[change](call.request.users);
    callLogger(this.options.logger, call).info({ accounts }, `student accounts ${change}ed`);
    return { accounts };
  }

  close(): Promise<void> {
    return this.databases.close();
  }
}
