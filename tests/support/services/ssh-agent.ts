/**
 * The real host agent set up for SSH into project containers, as the deploy unit runs it: its
 * own unprivileged system user in the Docker socket's group when the tests run as root
 * (otherwise the tests' own user), a Docker network of its own, SSH ports published on
 * 127.0.0.1 from a random range, and gRPC clients of its container and SSH services.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { ContainerServiceClient, type CreateContainerRequest, type CreateContainerResponse } from '@devplein/proto/container';
import { SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { unaryCall } from '../clients/agent-calls.ts';
import { type AgentUser, canSwitchUser, ensureAgentUser } from '../fixtures/agent-user.ts';
import { type ClientPems, makeTestCerts, readClientPems, startTestAgent, type TestAgent } from './agent.ts';
import { testDocker } from './docker.ts';
import { SSH_IMAGE_CAPABILITIES } from '../fixtures/ssh-image.ts';
import { findFreePort } from '../clients/ports.ts';

const execFileAsync = promisify(execFile);

export interface SshTestAgent {
  workDir: string;
  dataDir: string;
  certDir: string;
  pems: ClientPems;
  /** The agent's own system user (undefined when the tests do not run as root). */
  agentUser: AgentUser | undefined;
  agent: TestAgent;
  network: string;
  sshHost: string;
  ssh: SshAccessServiceClient;
  containers: ContainerServiceClient;
  /**
   * CreateContainer with the defaults of a test project (domain `{name}.dev.test`, owner 1) and
   * the capabilities the test images need: SSH_IMAGE_CAPABILITIES with `ssh`, none without.
   */
  create(request: Pick<CreateContainerRequest, 'projectId' | 'name' | 'image' | 'ssh'> & Partial<Pick<CreateContainerRequest, 'capabilities' | 'authorizedKeys'>>): Promise<CreateContainerResponse>;
  /** Stops the agent and removes its containers (names containing `suffix`), network and files. */
  stop(): Promise<void>;
}

/**
 * The agent settings of SSH into project containers in a test: its own Docker network, SSH ports
 * on 127.0.0.1 from a random range, small containers, no Caddy (the route keeper finds none and
 * only warns) and no reconcile run in between.
 */
export async function sshAgentEnv(options: { network: string; sshHost?: string }): Promise<Record<string, string>> {
  const sshFirstPort = 45_000 + Math.floor(Math.random() * 9_000);
  return {
    AGENT_SSH_HOST: options.sshHost ?? 'dev.devplein.test',
    AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
    AGENT_SSH_PORT_RANGE: `${sshFirstPort}-${sshFirstPort + 20}`,
    AGENT_DOCKER_NETWORK: options.network,
    AGENT_CONTAINER_MEMORY_MB: '64',
    AGENT_CADDY_ADMIN: `http://127.0.0.1:${await findFreePort()}`,
    AGENT_RECONCILE_CRON: '0 0 1 1 *',
    // The agent runs as its own user without the unit's CAP_NET_ADMIN here, so it cannot set the
    // container firewall, and would refuse to create containers; container-isolation.test.ts proves it.
    AGENT_CONTAINER_FIREWALL: 'off',
  };
}

export async function startSshTestAgent(options: { suffix: string; prefix: string; sshHost?: string }): Promise<SshTestAgent> {
  const { suffix } = options;
  const docker = testDocker();
  const workDir = await mkdtemp(path.join(os.tmpdir(), options.prefix));
  const dataDir = path.join(workDir, 'data');
  await mkdir(dataDir);
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  const agentUser = canSwitchUser() ? await ensureAgentUser() : undefined;
  // Its certificates and data dir, as the deploy unit's StateDirectory= and the 0640 env file give them.
  if (agentUser) await execFileAsync('chown', ['-R', `${agentUser.name}:${agentUser.name}`, workDir]);
  const network = `devplein-test-ssh-${suffix}`;
  const sshHost = options.sshHost ?? 'dev.school.test';
  const agent = await startTestAgent({
    certDir: certs.dir,
    dataDir,
    ...(agentUser ? { user: agentUser.name } : {}),
    // The project domains of these tests are {name}.dev.test (create below).
    env: { ...(await sshAgentEnv({ network, sshHost })), AGENT_SITE_DOMAIN: 'dev.test' },
  });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  const ssh = new SshAccessServiceClient(agent.address, credentials);
  const containers = new ContainerServiceClient(agent.address, credentials);
  return {
    workDir,
    dataDir,
    certDir: certs.dir,
    pems,
    agentUser,
    agent,
    network,
    sshHost,
    ssh,
    containers,
    create: (request) =>
      unaryCall(containers, containers.createContainer, {
        domain: `${request.name}.dev.test`,
        ownerUserId: 1,
        memberUserIds: [1],
        wordpress: false,
        limits: undefined,
        capabilities: { add: request.ssh ? [...SSH_IMAGE_CAPABILITIES] : [] },
        authorizedKeys: [],
        ...request,
      }),
    async stop() {
      ssh.close();
      containers.close();
      await agent.stop();
      const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } }).catch(() => []);
      await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
      await docker.getNetwork(network).remove().catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
