/**
 * The fake DatabaseService: databases and their accounts in the agent's `databases` map; locking
 * an account ends the open connections a test put in `openConnections`.
 */
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { DatabaseServiceServer } from '@devplein/proto/database';
import { type FakeRpc, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

/** A database (and its account) the fake DatabaseService made. */
export interface FakeDatabase {
  name: string;
  user: string;
  password: string;
  ownerUserId: number;
}

export interface DatabaseServiceContext {
  state: Pick<FakeAgentState, 'databases' | 'lockedAccounts' | 'openConnections'>;
  rpc: FakeRpc;
}

/** The agent contract's name rule for databases and accounts. */
const DATABASE_NAME = /^[a-z0-9_]{1,64}$/;
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

const randomPassword = (): string => [...randomBytes(24)].map((byte) => PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length]).join('');

export function databaseService({ state, rpc }: DatabaseServiceContext): DatabaseServiceServer {
  return {
    createDatabase: rpc.unary('createDatabase', (request) => {
      if (!DATABASE_NAME.test(request.name) || !DATABASE_NAME.test(request.user)) {
        return serviceError(grpc.status.INVALID_ARGUMENT, `bad database or account name ${JSON.stringify(request.name)}`);
      }
      if (state.databases.has(request.name) || [...state.databases.values()].some((database) => database.user === request.user)) {
        return serviceError(grpc.status.ALREADY_EXISTS, `database or account ${request.name} exists`);
      }
      const database: FakeDatabase = { name: request.name, user: request.user, password: randomPassword(), ownerUserId: Number(request.ownerUserId) };
      state.databases.set(database.name, database);
      return { database: { name: database.name, user: database.user }, password: database.password };
    }),
    dropDatabase: rpc.unary('dropDatabase', (request) => {
      if (!DATABASE_NAME.test(request.name) || !DATABASE_NAME.test(request.user)) {
        return serviceError(grpc.status.INVALID_ARGUMENT, `bad database or account name ${JSON.stringify(request.name)}`);
      }
      const database = state.databases.get(request.name);
      const accountOwner = [...state.databases.values()].find((candidate) => candidate.user === request.user);
      if (database) state.databases.delete(database.name);
      if (accountOwner && accountOwner !== database) state.databases.delete(accountOwner.name);
      return { databaseDropped: database !== undefined, userDropped: accountOwner !== undefined };
    }),
    lockAccounts: rpc.unary('lockAccounts', (request) => {
      if (!request.users.every((user) => DATABASE_NAME.test(user))) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad account name');
      return {
        accounts: request.users.map((user) => {
          const found = [...state.databases.values()].some((database) => database.user === user);
          const killedConnections = found ? (state.openConnections.get(user) ?? 0) : 0;
          if (found) {
            state.lockedAccounts.add(user);
            state.openConnections.delete(user);
          }
          return { user, found, killedConnections };
        }),
      };
    }),
    unlockAccounts: rpc.unary('unlockAccounts', (request) => {
      if (!request.users.every((user) => DATABASE_NAME.test(user))) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad account name');
      return {
        accounts: request.users.map((user) => {
          const found = [...state.databases.values()].some((database) => database.user === user);
          if (found) state.lockedAccounts.delete(user);
          return { user, found, killedConnections: 0 };
        }),
      };
    }),
    listDatabases: rpc.unary('listDatabases', (request) => ({
      databases: [...state.databases.values()]
        .filter((database) => database.name.startsWith(request.namePrefix))
        .map((database) => ({ name: database.name, user: database.user })),
    })),
  };
}
