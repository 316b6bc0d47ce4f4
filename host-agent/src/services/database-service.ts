import type * as grpc from '@grpc/grpc-js';
import { DatabaseServiceService, type DatabaseServiceServer } from '@devplein/proto/database';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'MySQL databases';
const pending = (method: keyof typeof DatabaseServiceService) => ({ path: DatabaseServiceService[method].path, capability });

/** DatabaseService: students' MySQL databases and accounts. Every RPC answers UNIMPLEMENTED for now. */
export class DatabaseServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: DatabaseServiceServer = {
      createDatabase: unimplementedUnary(pending('createDatabase')),
      dropDatabase: unimplementedUnary(pending('dropDatabase')),
      listDatabases: unimplementedUnary(pending('listDatabases')),
    };
    server.addService(DatabaseServiceService, handlers);
  }
}
