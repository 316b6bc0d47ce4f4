import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../services/agent.ts';
import { startCaddy, type TestCaddy } from '../services/caddy.ts';
import { testDocker } from '../services/docker.ts';

/** The real dev-server side of an end-to-end test: test certificates, a Caddy and a host agent on the shared Docker engine. */
export interface RealHosting {
  certs: TestCerts;
  caddy: TestCaddy;
  agent: TestAgent;
  /** Stops agent and Caddy, removes these containers (by name) and the Docker network, and the work dir. */
  stop(containerNames?: readonly string[]): Promise<void>;
}

/**
 * Starts what a dev server runs for an end-to-end test: a Caddy whose admin API the agent drives,
 * and the real agent with its containers on the Docker network `network` (unique per run: names
 * are global on the engine). `agentEnv` adds to or overrides the agent's settings.
 */
export async function startRealHosting(options: { network: string; agentEnv?: Record<string, string> }): Promise<RealHosting> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-e2e-hosting-'));
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const caddy = await startCaddy();
  const agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_DOCKER_NETWORK: options.network,
      AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
      ...options.agentEnv,
    },
  });
  return {
    certs,
    caddy,
    agent,
    async stop(containerNames = []) {
      await agent.stop();
      await caddy.stop();
      const docker = testDocker();
      for (const name of containerNames) await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
      await docker.getNetwork(options.network).remove().catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
