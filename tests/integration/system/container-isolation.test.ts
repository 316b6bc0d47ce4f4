/**
 * Network isolation of student containers (issue 16), proven with canaries: the real host agent
 * (gRPC over mutual TLS) makes two projects' containers on the real Docker engine, as it does on
 * a dev server, and from the student's container this file tries everything it must NOT reach:
 * the other project's web server (by name and by address), listeners on the host (on the
 * network's gateway address, on 0.0.0.0 reached through the gateway and through another address
 * of the host) and the other project's published SSH port. Positive controls keep the proof
 * honest: the student's own site still answers through Caddy, and a listener on the allowed
 * host port (standing in for MariaDB on 0.0.0.0:3306, which the shared test machine's own
 * MariaDB on 127.0.0.1:3306 makes impractical) stays reachable from the container.
 *
 * The agent finds the network as an agent before this change left it (a plain bridge with
 * inter-container traffic on, a site container and a stopped container on it): it must migrate
 * that network without losing either container.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerServiceClient, type CreateContainerRequest } from '@devplein/proto/container';
import { pruneContainerFirewalls } from '../../../host-agent/src/drivers/docker/container-firewall.ts';
import { refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { readClientPems, startTestAgent } from '../../support/services/agent.ts';
import { visitSite } from '../../support/services/caddy.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { type RealHosting, startRealHosting } from '../../support/stacks/real-hosting.ts';
import { ensureSshImage } from '../../support/fixtures/ssh-image.ts';

const execFileAsync = promisify(execFile);
const suffix = randomSuffix();
const network = `devplein-iso-${suffix}`;
const docker = testDocker();
const projectBase = 760_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
const sshFirstPort = 46_000 + Math.floor(Math.random() * 8_000);
const token = randomBytes(6).toString('hex');

const student = { projectId: projectBase + 1, name: `student-${suffix}` };
const other = { projectId: projectBase + 2, name: `other-${suffix}` };
const legacyName = `legacy-${suffix}`;
const legacyStoppedName = `legacy-stopped-${suffix}`;
/** An admin's own container on the network (no devplein labels): it must come back too. */
const adminName = `admin-${suffix}`;

let hosting: RealHosting;
let client: ContainerServiceClient;
let webImage: string;
let allowedPort: number;
const servers: net.Server[] = [];

/** A TCP listener that writes `canary-{label}-{token}` to whoever connects, then closes. */
async function canary(host: string, label: string, port = 0): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(`canary-${label}-${token}\n`);
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * What a TCP connection from inside the container to host:port gets back (the NOTES.md probe:
 * busybox wget segfaults in the static image, nc works). An unreachable target gives an nc
 * error or nothing; never the canary's text.
 */
async function probe(container: string, host: string, port: number): Promise<string> {
  const { stdout, stderr } = await execFileAsync('docker', [
    'exec',
    container,
    'sh',
    '-c',
    'printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 3 "$0" "$1" 2>&1; echo "nc-exit=$?"',
    host,
    String(port),
  ]);
  return stdout + stderr;
}

const create = (request: Pick<CreateContainerRequest, 'projectId' | 'name' | 'image' | 'ssh'>) =>
  unaryCall(client, client.createContainer, {
    domain: `${request.name}.dev.test`,
    ownerUserId: 1,
    memberUserIds: [1],
    wordpress: false,
    limits: undefined,
    // Not sent: the agent's whole allow-list, enough for the web and the SSH test images.
    capabilities: undefined,
    authorizedKeys: [],
    ...request,
  });

async function inspectNetwork(): Promise<Docker.NetworkInspectInfo> {
  return docker.getNetwork(network).inspect() as Promise<Docker.NetworkInspectInfo>;
}

/** The first IPv4 address of this host outside the test network (eth0, docker0, …). */
function anotherHostAddress(exclude: string): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal && address.address !== exclude) return address.address;
    }
  }
  throw new Error('this host has no IPv4 address besides loopback and the test network: the proof needs one');
}

/** A container made as the agent before network isolation made them (labels, published HTTP port). */
async function legacyContainer(name: string, projectId: number): Promise<Docker.Container> {
  return docker.createContainer({
    name,
    Image: webImage,
    Labels: {
      'devplein.managed': 'true',
      'devplein.project-id': String(projectId),
      'devplein.domain': `${name}.dev.test`,
      'devplein.owner-id': '1',
      'devplein.ssh': 'false',
      'devplein.wordpress': 'false',
      'devplein.http-port': '80',
    },
    ExposedPorts: { '80/tcp': {} },
    HostConfig: {
      Init: true,
      NetworkMode: network,
      RestartPolicy: { Name: 'unless-stopped' },
      PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
    },
  });
}

/** The host port the container's HTTP port is published on. */
async function publishedHttpPort(name: string): Promise<number> {
  const info = await docker.getContainer(name).inspect();
  return Number(info.NetworkSettings.Ports['80/tcp']?.[0]?.HostPort);
}

function httpGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('timeout')));
    socket.on('connect', () => socket.write('GET / HTTP/1.0\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  requireDockerEngine();
  const [web, ssh] = await Promise.all([ensureWebImage(), ensureSshImage()]);
  webImage = web;
  // The network and containers as the agent before this change left them.
  await docker.createNetwork({ Name: network, Driver: 'bridge', CheckDuplicate: true, Labels: { 'devplein.managed': 'true' } });
  const legacy = await legacyContainer(legacyName, projectBase + 3);
  await legacy.start();
  await legacyContainer(legacyStoppedName, projectBase + 4);
  const admin = await docker.createContainer({ name: adminName, Image: webImage, HostConfig: { Init: true, NetworkMode: network } });
  await admin.start();

  allowedPort = await findFreePort('0.0.0.0');
  await canary('0.0.0.0', 'allowed', allowedPort);
  hosting = await startRealHosting({
    network,
    agentEnv: {
      // As on a dev server: SSH published on every address of the host.
      AGENT_SSH_BIND_ADDRESS: '0.0.0.0',
      AGENT_SSH_PORT_RANGE: `${sshFirstPort}-${sshFirstPort + 20}`,
      AGENT_CONTAINER_MEMORY_MB: '64',
      AGENT_CONTAINER_HOST_PORTS: String(allowedPort),
      AGENT_RECONCILE_CRON: '0 0 1 1 *',
      // The projects of this file live under dev.test (the agent routes only its site domain).
      AGENT_SITE_DOMAIN: 'dev.test',
    },
  });
  const pems = await readClientPems(hosting.certs.ca, hosting.certs.clientCert, hosting.certs.clientKey);
  client = new ContainerServiceClient(hosting.agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  await create({ ...student, image: web, ssh: false });
  await create({ ...other, image: ssh, ssh: true });
});

afterAll(async () => {
  client?.close();
  for (const server of servers) server.close();
  await hosting?.stop([student.name, other.name, legacyName, legacyStoppedName, adminName]);
  // The agent keeps its chain while the network lives; the network is gone now.
  await pruneContainerFirewalls('iptables').catch(() => undefined);
});

describe('a student container', () => {
  it('reaches nothing of another project nor of the host, except the allowed host port', async () => {
    const info = await inspectNetwork();
    const gateway = info.IPAM?.Config?.[0]?.Gateway ?? '';
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const hostAddress = anotherHostAddress(gateway);
    const otherInfo = await docker.getContainer(other.name).inspect();
    const otherAddress = otherInfo.NetworkSettings.Networks[network]?.IPAddress ?? '';
    const otherSshPort = Number(otherInfo.NetworkSettings.Ports['22/tcp']?.[0]?.HostPort);
    expect(otherAddress).not.toBe('');
    expect(otherSshPort).toBeGreaterThan(0);
    const onGateway = await canary(gateway, 'gateway');
    const onAnyAddress = await canary('0.0.0.0', 'any');

    // Positive controls first: when these fail, the probes below prove nothing.
    await waitFor(async () => (await visitSite(hosting.caddy.httpPort, `${student.name}.dev.test`)).body.includes('devplein test page'), {
      description: "the student's own site through Caddy",
      timeoutMs: 15_000,
    });
    expect(await probe(student.name, gateway, allowedPort)).toContain(`canary-allowed-${token}`);
    // The other project's servers do answer (from the host, and from inside their own container).
    expect(await probe(other.name, '127.0.0.1', 80)).toContain('devplein test page');

    const targets: Array<[string, string, number, string]> = [
      ["the other project's web server by name", other.name, 80, 'devplein test page'],
      ["the other project's web server by address", otherAddress, 80, 'devplein test page'],
      ["the other project's SSH server by address", otherAddress, 22, 'SSH-2.0'],
      ['a listener on the gateway address', gateway, onGateway, `canary-gateway-${token}`],
      ['a listener on 0.0.0.0 through the gateway', gateway, onAnyAddress, `canary-any-${token}`],
      [`a listener on 0.0.0.0 through ${hostAddress}`, hostAddress, onAnyAddress, `canary-any-${token}`],
      ["the other project's published SSH port through the gateway", gateway, otherSshPort, 'SSH-2.0'],
      [`the other project's published SSH port through ${hostAddress}`, hostAddress, otherSshPort, 'SSH-2.0'],
      [`the legacy container by name`, legacyName, 80, 'devplein test page'],
    ];
    const answers = await Promise.all(targets.map(async ([what, host, port, marker]) => ({ what, host, port, reached: (await probe(student.name, host, port)).includes(marker) })));
    expect(answers.filter((answer) => answer.reached)).toEqual([]);
  });
});

describe('a network made before isolation', () => {
  it('is recreated with inter-container traffic off, and its containers stay on it', async () => {
    const info = await inspectNetwork();
    expect(info.Options?.['com.docker.network.bridge.enable_icc']).toBe('false');
    const legacy = await docker.getContainer(legacyName).inspect();
    expect(legacy.State.Running).toBe(true);
    expect(Object.keys(legacy.NetworkSettings.Networks)).toEqual([network]);
    // Reconnecting publishes its ports again, on another host port (seen: 32770 → 32771): the agent brings Caddy's
    // route along at once (the reconcile schedule of this file is once a year).
    const legacyPortAfter = await publishedHttpPort(legacyName);
    expect(await httpGet(legacyPortAfter)).toContain('devplein test page');
    await waitFor(async () => (await visitSite(hosting.caddy.httpPort, `${legacyName}.dev.test`)).body.includes('devplein test page'), {
      description: 'the moved site through Caddy',
      timeoutMs: 10_000,
    });

    // The stopped one was moved too: it starts on the new network.
    await docker.getContainer(legacyStoppedName).start();
    const stopped = await docker.getContainer(legacyStoppedName).inspect();
    expect(Object.keys(stopped.NetworkSettings.Networks)).toEqual([network]);
    expect(stopped.NetworkSettings.Networks[network]?.NetworkID).toBe(info.Id);
    const admin = await docker.getContainer(adminName).inspect();
    expect(admin.NetworkSettings.Networks[network]?.NetworkID).toBe(info.Id);
    // Just started: its web server answers once it is up.
    const stoppedPort = await publishedHttpPort(legacyStoppedName);
    await waitFor(async () => (await httpGet(stoppedPort)).includes('devplein test page'), { description: 'the moved, restarted site on its published port', timeoutMs: 10_000 });
    expect(hosting.agent.output()).toContain('inter-container traffic');
  });
});

describe('an agent that cannot set the firewall', () => {
  it('creates no container and says why in its log', async () => {
    const unprotected = `devplein-iso-nofw-${suffix}`;
    const name = `nofw-${suffix}`;
    const agent = await startTestAgent({
      certDir: hosting.certs.dir,
      env: { AGENT_DOCKER_NETWORK: unprotected, AGENT_SITE_DOMAIN: 'dev.test', AGENT_IPTABLES_BINARY: '/nonexistent/iptables', AGENT_SSH_BIND_ADDRESS: '127.0.0.1', AGENT_RECONCILE_CRON: '0 0 1 1 *' },
    });
    const pems = await readClientPems(hosting.certs.ca, hosting.certs.clientCert, hosting.certs.clientKey);
    const other = new ContainerServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
    try {
      const error = await refusal(
        unaryCall(other, other.createContainer, { projectId: projectBase + 5, name, domain: `${name}.dev.test`, image: webImage, ownerUserId: 1, memberUserIds: [1], ssh: false, wordpress: false, limits: undefined, capabilities: undefined, authorizedKeys: [] }),
      );
      expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(error.details).toMatch(/container firewall cannot be set.*iptables is not installed/);
      // The agent's log reaches this process through a pipe, after the call's answer may have.
      await waitFor(() => agent.output().includes('CANNOT ISOLATE STUDENT CONTAINERS'), { description: 'the agent to log that it cannot isolate containers', timeoutMs: 10_000 });
      expect(await docker.listContainers({ all: true, filters: { name: [name] } })).toEqual([]);
    } finally {
      other.close();
      await agent.stop();
      await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
      await docker.getNetwork(unprotected).remove().catch(() => undefined);
    }
  });
});
