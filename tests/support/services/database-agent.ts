/**
 * The real host agent with a throwaway MariaDB behind it (student accounts on host '%'), and a
 * DatabaseService client over mutual TLS: the set-up of the agent's database tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { DatabaseServiceClient } from '@devplein/proto/database';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from './agent.ts';
import { startMariaDb, type TestMariaDb } from './mariadb.ts';

export interface DatabaseAgent {
  mariadb: TestMariaDb;
  agent: TestAgent;
  client: DatabaseServiceClient;
  stop(): Promise<void>;
}

export async function startDatabaseAgent(prefix: string): Promise<DatabaseAgent> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const certs = await makeTestCerts(workDir);
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const mariadb = await startMariaDb();
  const agent = await startTestAgent({ certDir: workDir, env: { AGENT_MYSQL_URL: mariadb.adminUrl, AGENT_MYSQL_USER_HOST: '%' } });
  const client = new DatabaseServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  return {
    mariadb,
    agent,
    client,
    async stop() {
      client.close();
      await agent.stop();
      await mariadb.stop();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
