/**
 * Graceful shutdown of both processes (SIGTERM, as systemd sends it):
 * - the control plane lets a request whose agent call is still running finish, ends an open
 *   log follow (a stream that never ends by itself), cancels its event watch on the agent, and
 *   exits 0 without having to cut connections off;
 * - the host agent ends its open event streams with UNAVAILABLE 'the agent is shutting down'
 *   (clients reconnect to the next process) instead of holding its shutdown until the timeout.
 * Real processes: the control plane with the fake agent, and the real agent on the Docker engine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError, createAgentClient } from '../../../control-plane/src/agent/agent-client.ts';
import { networkCreateOptions } from '../../../host-agent/src/drivers/docker/project-network.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { startHostingStack, STUDENT, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { waitFor } from '../../support/clients/ports.ts';

describe('control plane: SIGTERM', { timeout: 90_000 }, () => {
  let stack: HostingStack;

  beforeAll(async () => {
    stack = await startHostingStack({ env: { AGENT_DEADLINE_MS: '10000' } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('finishes the request in flight, ends the open log follow, closes the event watch and exits 0', async () => {
    const project = await stack.project({ name: 'zachtestop', members: [STUDENT] });
    stack.agent.addManaged({ name: 'zachtestop', projectId: project.id, domain: 'zachtestop.dev.devplein.test', state: 'running' });
    // Another container that keeps running: its log follow only ends when someone ends it.
    const followed = await stack.project({ name: 'zachtevolg', members: [STUDENT] });
    stack.agent.addManaged({ name: 'zachtevolg', projectId: followed.id, domain: 'zachtevolg.dev.devplein.test', state: 'running' });
    const student = await stack.as(STUDENT);
    await waitFor(() => stack.agent.watcherCount === 1, { description: 'the event relay to watch the agent', timeoutMs: 20_000 });

    // A log follow: server-sent events that only end when someone ends them.
    const follow = await student.raw(`/api/user/container/${followed.name}/follow`);
    expect(follow.status).toBe(200);
    const reader = follow.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain(': verbonden');
    const followEnded = (async () => {
      for (;;) if ((await reader.read()).done) return true;
    })();

    // An action whose agent call takes a while: SIGTERM arrives while it runs.
    stack.agent.slowMs = 1_500;
    stack.agent.mode = 'slow';
    const callsBefore = stack.agent.calls.length;
    const action = student.json<Array<{ State: string }>>('PUT', `/api/user/dockers/${project.id}?action=stop`);
    await waitFor(() => stack.agent.calls.slice(callsBefore).some((call) => call.method === 'changeContainerState'), {
      description: 'the stop to reach the agent',
      timeoutMs: 10_000,
    });
    const exit = stack.app.terminate();

    const answer = await action;
    expect(answer.status).toBe(200);
    expect(answer.body[0]?.State).toBe('exited');
    expect(await followEnded).toBe(true);
    expect(await exit).toEqual({ code: 0, signal: null });
    await waitFor(() => stack.agent.watcherCount === 0, { description: 'the event watch to be closed', timeoutMs: 10_000 });
    expect(stack.app.output()).not.toContain('did not finish in time');
    stack.agent.mode = 'ok';
  });
});

describe('host agent: SIGTERM', { timeout: 90_000 }, () => {
  let workDir: string;
  let agent: TestAgent;
  /** The agent's own network: it streams events only of containers on it (another agent's are not its business). */
  const network = `devplein-shutdown-${randomSuffix()}`;

  beforeAll(async () => {
    requireDockerEngine();
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-shutdown-'));
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    // Longer than the helper's SIGKILL fallback: a stream that held the shutdown would show.
    agent = await startTestAgent({
      certDir: certs.dir,
      env: { LOG_LEVEL: 'info', AGENT_SHUTDOWN_TIMEOUT_MS: '60000', AGENT_DOCKER_NETWORK: network },
    });
    const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
    Object.assign(agent, { pems });
  });

  afterAll(async () => {
    await agent?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('ends its open event streams with UNAVAILABLE and stops without waiting for them', async () => {
    const { pems } = agent as TestAgent & { pems: Awaited<ReturnType<typeof readClientPems>> };
    const client = createAgentClient({ address: agent.address, ...pems, deadlineMs: 5_000, logger: pino({ level: 'silent' }) });
    const docker = testDocker();
    const image = await ensureWebImage();
    await docker.createNetwork(networkCreateOptions(network));
    let events = 0;
    const containers: Array<Awaited<ReturnType<typeof docker.createContainer>>> = [];
    try {
      const watching = (async () => {
        try {
          for await (const event of client.containers.watchContainerEvents({}, {})) if (event) events += 1;
          return 'ended without an error';
        } catch (error) {
          return error instanceof AgentError ? `${error.code}: ${error.details}` : String(error);
        }
      })();
      // A managed container's event arriving proves the stream is open on the agent. The agent
      // may not be listening to Docker yet when the first one is made (an event before that
      // reaches nobody): make another each second until one arrives.
      await waitFor(
        async () => {
          if (events > 0) return true;
          containers.push(
            await docker.createContainer({ Image: image, name: `zachtestop-${randomSuffix()}`, Labels: { 'devplein.managed': 'true', 'devplein.project-id': '990001' }, HostConfig: { NetworkMode: network } }),
          );
          return false;
        },
        { description: 'an event on the open watch', timeoutMs: 20_000, intervalMs: 1_000 },
      );
      await agent.stop();
      expect(await watching).toBe('UNAVAILABLE: the agent is shutting down');
      expect(agent.output()).toContain('"msg":"stopped"');
      expect(agent.output()).not.toContain('cutting them off');
    } finally {
      client.close();
      for (const container of containers) await container.remove({ force: true }).catch(() => undefined);
      await docker.getNetwork(network).remove().catch(() => undefined);
    }
  });
});
