/**
 * The agent link end to end: the real host agent as its own process, gRPC over mutual TLS with
 * certificates from deploy/certs/make-certs.sh, and the control plane's agent client.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseServiceClient } from '@devplein/proto/database';
import { type GetInfoResponse, InfoServiceClient } from '@devplein/proto/info';
import { CONTRACT_MAJOR, CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { AgentError, type AgentClient, createAgentClient } from '../../../control-plane/src/agent/agent-client.ts';
import { toAgentError } from '../../../control-plane/src/agent/agent-error.ts';
import {
  type ClientPems,
  makeClientCert,
  makeTestCerts,
  readClientPems,
  startTestAgent,
  type TestAgent,
  type TestCerts,
} from '../../support/services/agent.ts';
import { waitFor } from '../../support/clients/ports.ts';

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const silentLogger = pino({ level: 'silent' });

let workDir: string;
let certs: TestCerts;
let controlPlane: ClientPems;
let agent: TestAgent;
const clients: Array<{ close(): void }> = [];

/** A raw generated client, to send exactly the metadata a test wants. */
function rawInfoClient(pems: ClientPems, address = agent.address): InfoServiceClient {
  const client = new InfoServiceClient(address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  clients.push(client);
  return client;
}

function versionMetadata(version: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (version !== undefined) metadata.set(CONTRACT_VERSION_METADATA_KEY, version);
  return metadata;
}

const deadline = (): Partial<grpc.CallOptions> => ({ deadline: new Date(Date.now() + 5_000) });

function getInfo(client: InfoServiceClient, metadata: grpc.Metadata): Promise<GetInfoResponse> {
  return new Promise((resolve, reject) => {
    client.getInfo({}, metadata, deadline(), (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** Resolves with the AgentError a promise rejects with (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    return toAgentError(error);
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

function agentClient(pems: ClientPems, extra: Partial<Parameters<typeof createAgentClient>[0]> = {}): AgentClient {
  const client = createAgentClient({ address: agent.address, ...pems, deadlineMs: 5_000, logger: silentLogger, ...extra });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-link-'));
  certs = await makeTestCerts(path.join(workDir, 'link'));
  controlPlane = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  agent = await startTestAgent({ certDir: certs.dir, env: { LOG_LEVEL: 'debug' } });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await agent?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('agent link over mutual TLS', () => {
  it('serves Info to the control plane, with the request id in both logs', async () => {
    const client = agentClient(controlPlane);
    const info = await client.info({ requestId: 'agent-link-test-1' });

    const hostAgentPackage = JSON.parse(await readFile(path.join(root, 'host-agent/package.json'), 'utf8')) as { version: string };
    expect(info.agentVersion).toBe(hostAgentPackage.version);
    expect(info.contractVersion).toBe(CONTRACT_VERSION);
    expect(info.hostname).toBe(os.hostname());
    expect(Object.keys(info.capabilities).sort()).toEqual(['chromium', 'docker', 'mysql', 'proxy', 'wireguard']);
    for (const capability of Object.values(info.capabilities)) {
      expect(typeof capability.available).toBe('boolean');
      expect(capability.detail).not.toBe('');
    }
    expect(client.status().state).toBe('reachable');
    await waitFor(() => agent.output().includes('"requestId":"agent-link-test-1"'), {
      description: 'the agent to log the request id',
      timeoutMs: 5_000,
    });
  });

  it('refuses a client certificate from another CA', async () => {
    const otherCerts = await makeTestCerts(path.join(workDir, 'other-ca'));
    // Trusts the agent's CA, presents a certificate (CN devplein-control-plane) of another CA.
    const stranger = await readClientPems(certs.ca, otherCerts.clientCert, otherCerts.clientKey);
    const error = await refusal(agentClient(stranger).info());
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.unreachable).toBe(true);
  });

  it('refuses a valid certificate whose CN is not an allowed client', async () => {
    const intruder = await makeClientCert(certs, 'devplein-intruder');
    const pems = await readClientPems(certs.ca, intruder.cert, intruder.key);
    const error = await refusal(agentClient(pems).info());
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.unreachable).toBe(false);
    expect(error.details).toContain('devplein-intruder');
  });

  it('refuses another contract major and a missing version with FAILED_PRECONDITION', async () => {
    const client = rawInfoClient(controlPlane);
    const otherMajor = await refusal(getInfo(client, versionMetadata(`${CONTRACT_MAJOR + 1}.0.0`)));
    expect(otherMajor.code).toBe('FAILED_PRECONDITION');
    expect(otherMajor.details).toContain(`${CONTRACT_MAJOR + 1}.0.0`);

    const missing = await refusal(getInfo(client, versionMetadata(undefined)));
    expect(missing.code).toBe('FAILED_PRECONDITION');
    expect(missing.details).toContain(CONTRACT_VERSION_METADATA_KEY);

    // Any minor of the same major is accepted (additive changes only).
    const sameMajor = await getInfo(client, versionMetadata(`${CONTRACT_MAJOR}.99.0`));
    expect(sameMajor.contractVersion).toBe(CONTRACT_VERSION);
  });

  it('answers UNAVAILABLE, naming the setting, when the host has no MySQL server for students', async () => {
    const credentials = grpc.credentials.createSsl(controlPlane.caPem, controlPlane.keyPem, controlPlane.certPem);
    const databases = new DatabaseServiceClient(agent.address, credentials);
    clients.push(databases);

    const unary = await refusal(
      new Promise((resolve, reject) =>
        databases.listDatabases({ namePrefix: '' }, versionMetadata(CONTRACT_VERSION), deadline(), (error, response) =>
          error ? reject(error) : resolve(response),
        ),
      ),
    );
    expect(unary.code).toBe('UNAVAILABLE');
    expect(unary.details).toContain('AGENT_MYSQL_URL');
  });

  it('reports the agent unreachable while it is down and reachable again when it returns, with the same client', async () => {
    const ownAgent = await startTestAgent({ certDir: certs.dir });
    try {
      const client = agentClient(controlPlane, {
        address: ownAgent.address,
        deadlineMs: 1_000,
        monitorIntervalMs: 200,
        backoff: { initialMs: 100, maxMs: 500 },
      });
      expect(client.status().state).toBe('unknown');
      client.start();
      const wait = (state: string, description: string) =>
        waitFor(() => client.status().state === state, { description, timeoutMs: 15_000, intervalMs: 50 });

      await wait('reachable', 'the monitor to see the agent');
      const firstInfo = client.status().info;
      expect(firstInfo?.contractVersion).toBe(CONTRACT_VERSION);

      await ownAgent.kill();
      await wait('unreachable', 'the monitor to notice the killed agent');
      const down = client.status();
      expect(down.lastError).toMatch(/UNAVAILABLE|DEADLINE_EXCEEDED/);
      expect(down.info?.hostname).toBe(firstInfo?.hostname);
      await expect(client.info()).rejects.toMatchObject({ unreachable: true });

      await ownAgent.restart();
      await wait('reachable', 'the monitor to see the restarted agent');
      expect((await client.info()).agentVersion).toBe(firstInfo?.agentVersion);

      // A graceful stop (SIGTERM) ends the process cleanly and is noticed the same way.
      await ownAgent.stop();
      expect(ownAgent.output()).toContain('"msg":"stopped"');
      await wait('unreachable', 'the monitor to notice the stopped agent');
    } finally {
      await ownAgent.stop();
    }
  }, 90_000);
});

describe('agent contract code', () => {
  it('is buf-lint clean and proto/gen matches the .proto files', async () => {
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'scripts/proto-gen.ts', '--check'], { cwd: root });
    expect(stdout).toContain('buf lint: ok');
    expect(stdout).toContain('proto/gen is up to date');
  }, 60_000);
});
