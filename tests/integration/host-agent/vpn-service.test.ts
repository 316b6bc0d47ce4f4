/**
 * VpnService end to end on real WireGuard: the real host agent (gRPC over mutual TLS) brings up
 * a wireguard-go interface, adds and removes peers with `wg`, keeps them on disk so a restarted
 * agent restores them, and fences peers in with its own iptables chain. A network namespace
 * "home" with a WireGuard client proves a real tunnel: a real MariaDB on the server's tunnel
 * address answers a query through it (TCP 3306, the firewall's default), while another port of
 * that same address (a canary listener) and an address outside the allowed networks get
 * nothing (the firewall drops them, however the client widens its own AllowedIPs).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreatePeerResponse, type GetServerInfoResponse, type Peer, VpnServiceClient } from '@devplein/proto/vpn';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { startMariaDb, type TestMariaDb } from '../../support/services/mariadb.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import {
  attempt,
  deleteInterface,
  droppedPackets,
  hookCount,
  type HomeNetwork,
  inNetns,
  interfaceExists,
  iptablesRules,
  makeHomeNetwork,
  removeFirewall,
  requireWireGuardTools,
  run,
  startWireGuardClient,
  tcpConnects,
  uniqueSuffix,
  wgAllowedIps,
  wgShow,
} from '../../support/services/wireguard.ts';

const suffix = uniqueSuffix();
const iface = `dvt${suffix}`;
const chain = `DEVPLEIN-${iface}`;
const homeIface = `dvh${suffix}`;
const netns = `devplein-home-${suffix}`;
const rootVeth = `dvr${suffix}`;
const homeVeth = `dvv${suffix}`;
// Private test networks; the third octet varies per run so parallel runs rarely meet.
const octet = 1 + (randomBytes(1)[0] ?? 0) % 250;
const pool = `10.203.${octet}.0/24`;
const serverAddress = `10.203.${octet}.1`;
const extraAllowed = `10.207.${octet}.0/24`;
const outsideAddress = `10.205.${octet}.1`;
const vethPrefix = `10.204.${octet}`;
/** The chain with the default AGENT_WG_FIREWALL_ALLOW (tcp/3306), as `iptables -S` prints it. */
const expectedRules = [
  `-N ${chain}`,
  `-A ${chain} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  `-A ${chain} -d ${serverAddress}/32 -p tcp -m tcp --dport 3306 -j ACCEPT`,
  `-A ${chain} -d ${extraAllowed} -p tcp -m tcp --dport 3306 -j ACCEPT`,
  `-A ${chain} -j DROP`,
];

let workDir: string;
let dataDir: string;
let agent: TestAgent | undefined;
let client: VpnServiceClient | undefined;
let listenPort: number;
let home: HomeNetwork | undefined;
let outsideAdded = false;
const listeners: Server[] = [];
/** The students' database, listening on the server's tunnel address only, port 3306. */
let database: TestMariaDb | undefined;
const databasePassword = randomBytes(12).toString('hex');
/** Connections that reached the canary listener (another port of the tunnel address). */
let canaryConnections = 0;

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

const callOptions = () => ({ deadline: new Date(Date.now() + 30_000) });

function vpn(): VpnServiceClient {
  if (!client) throw new Error('the agent did not start');
  return client;
}

function createPeer(publicKey: string, address = '', userId = 7): Promise<CreatePeerResponse> {
  return new Promise((resolve, reject) => {
    vpn().createPeer({ publicKey, address, identifier: `id-${publicKey.slice(0, 8)}`, userId }, metadata(), callOptions(), (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

function removePeer(publicKey: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    vpn().removePeer({ publicKey }, metadata(), callOptions(), (error, response) => (error ? reject(error) : resolve(response.removed)));
  });
}

function listPeers(): Promise<Peer[]> {
  return new Promise((resolve, reject) => {
    vpn().listPeers({}, metadata(), callOptions(), (error, response) => (error ? reject(error) : resolve(response.peers)));
  });
}

function serverInfo(): Promise<GetServerInfoResponse> {
  return new Promise((resolve, reject) => {
    vpn().getServerInfo({}, metadata(), callOptions(), (error, response) => (error ? reject(error) : resolve(response)));
  });
}

async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** A WireGuard key pair as `wg genkey`/`wg pubkey` print them. */
function keyPair(): { privateKey: string; publicKey: string } {
  const jwk = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
  const b64 = (value: string | undefined) => Buffer.from(value ?? '', 'base64url').toString('base64');
  return { privateKey: b64(jwk.d), publicKey: b64(jwk.x) };
}

async function storedPeers(): Promise<Array<{ publicKey: string; address: string; identifier: string; userId: number }>> {
  const text = await readFile(path.join(dataDir, 'wireguard', `${iface}.json`), 'utf8');
  return (JSON.parse(text) as { peers: Array<{ publicKey: string; address: string; identifier: string; userId: number }> }).peers;
}

/** A TCP listener on one of the server's own addresses (only reachable from the test's namespaces). */
async function listenOn(host: string, onConnection: () => void = () => undefined): Promise<number> {
  const server = createServer((socket) => {
    onConnection();
    socket.end();
  });
  listeners.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  requireWireGuardTools();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-vpn-'));
  dataDir = path.join(workDir, 'data');
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  listenPort = await findFreePort();
  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_DATA_DIR: dataDir,
      AGENT_WG_INTERFACE: iface,
      AGENT_WG_LISTEN_PORT: String(listenPort),
      AGENT_WG_ADDRESS_POOL: pool,
      AGENT_WG_ALLOWED_NETWORKS: `${serverAddress}/32,${extraAllowed}`,
      AGENT_WG_DNS: serverAddress,
      AGENT_WG_FIREWALL: 'iptables',
      AGENT_CADDY_ADMIN: `http://127.0.0.1:${await findFreePort()}`,
      AGENT_RECONCILE_CRON: '0 0 1 1 *',
    },
  });
  client = new VpnServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
}, 90_000);

afterAll(async () => {
  client?.close();
  await agent?.stop();
  for (const server of listeners) server.close();
  await database?.stop();
  if (home) {
    await deleteInterface(homeIface, home.netns);
    await home.remove();
  }
  if (outsideAdded) await attempt('ip', ['address', 'del', `${outsideAddress}/32`, 'dev', 'lo']);
  await deleteInterface(iface);
  await removeFirewall(iface, chain);
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

describe('VpnService on wireguard-go', () => {
  it('brings the interface up and tells what a client configuration needs', async () => {
    const info = await serverInfo();
    expect(info).toEqual({
      publicKey: await wgShow(iface, 'public-key'),
      endpoint: `localhost:${listenPort}`,
      allowedNetworks: [`${serverAddress}/32`, extraAllowed],
      addressPool: pool,
      dnsServers: [serverAddress],
      interfaceName: iface,
    });
    expect(await wgShow(iface, 'listen-port')).toBe(String(listenPort));
    expect(await run('ip', ['-4', '-o', 'address', 'show', 'dev', iface])).toContain(`inet ${serverAddress}/24`);
    // The key is kept in the data dir, owner-only.
    const keyFile = path.join(dataDir, 'wireguard', `${iface}.key`);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  });

  it('owns an iptables chain: established, TCP 3306 of each allowed network, then DROP, hooked once from INPUT and FORWARD', async () => {
    await serverInfo();
    expect(await iptablesRules(chain)).toEqual(expectedRules);
    expect(await hookCount('INPUT', iface, chain)).toBe(1);
    expect(await hookCount('FORWARD', iface, chain)).toBe(1);
  });

  it('adds a peer with its /32, returns the same peer for the same key, and refuses bad input', async () => {
    const { publicKey } = keyPair();
    const first = await createPeer(publicKey);
    expect(first.created).toBe(true);
    expect(first.peer).toMatchObject({ publicKey, address: `10.203.${octet}.2/32`, userId: 7 });
    expect((await wgAllowedIps(iface)).get(publicKey)).toBe(`10.203.${octet}.2/32`);
    const again = await createPeer(publicKey);
    expect(again).toEqual({ ...first, created: false });
    expect((await listPeers()).map((peer) => peer.publicKey)).toContain(publicKey);

    expect((await refusal(createPeer('not-a-key'))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await refusal(createPeer(randomBytes(31).toString('base64')))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await refusal(createPeer(keyPair().publicKey, `10.99.${octet}.5`))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await refusal(createPeer(keyPair().publicKey, serverAddress))).code).toBe(grpc.status.INVALID_ARGUMENT);
    const taken = await refusal(createPeer(keyPair().publicKey, `10.203.${octet}.2/32`));
    expect(taken.code).toBe(grpc.status.ALREADY_EXISTS);
    expect((await refusal(removePeer('nope'))).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('hands out 50 distinct addresses to 50 concurrent creates, all on the interface and on disk', async () => {
    const keys = Array.from({ length: 50 }, () => keyPair().publicKey);
    const answers = await Promise.all(keys.map((key) => createPeer(key)));
    expect(answers.every((answer) => answer.created)).toBe(true);
    const addresses = answers.map((answer) => answer.peer?.address ?? '');
    expect(new Set(addresses).size).toBe(50);
    for (const address of addresses) expect(address).toMatch(new RegExp(`^10\\.203\\.${octet}\\.\\d+/32$`));
    const onInterface = await wgAllowedIps(iface);
    for (const [index, key] of keys.entries()) expect(onInterface.get(key)).toBe(addresses[index]);
    const stored = await storedPeers();
    expect(new Set(stored.map((peer) => peer.address)).size).toBe(stored.length);
    expect(stored.length).toBe(51);
  });

  it('removes a peer from the interface and from disk', async () => {
    const { publicKey } = keyPair();
    const { peer } = await createPeer(publicKey, `10.203.${octet}.200`);
    expect(peer?.address).toBe(`10.203.${octet}.200/32`);
    expect((await wgAllowedIps(iface)).has(publicKey)).toBe(true);
    expect(await removePeer(publicKey)).toBe(true);
    expect((await wgAllowedIps(iface)).has(publicKey)).toBe(false);
    expect((await storedPeers()).some((stored) => stored.publicKey === publicKey)).toBe(false);
    expect(await removePeer(publicKey)).toBe(false);
  });

  it('carries the database through a real tunnel and drops the rest: another port of the tunnel address, another address', async () => {
    home = await makeHomeNetwork({ netns, rootVeth, homeVeth, prefix: vethPrefix });
    await run('ip', ['address', 'add', `${outsideAddress}/32`, 'dev', 'lo']);
    outsideAdded = true;
    database = await startMariaDb({ bindAddress: serverAddress, port: 3306, adminHost: '%', adminPassword: databasePassword });
    const canaryPort = await listenOn(serverAddress, () => (canaryConnections += 1));
    const outsidePort = await listenOn(outsideAddress);

    const keys = keyPair();
    const { peer } = await createPeer(keys.publicKey);
    const address = peer?.address ?? '';
    const keyFile = path.join(workDir, 'home.key');
    await writeFile(keyFile, `${keys.privateKey}\n`, { mode: 0o600 });
    const info = await serverInfo();
    // The student widens their own AllowedIPs to an address outside the allowed networks.
    await startWireGuardClient({
      netns,
      iface: homeIface,
      privateKeyFile: keyFile,
      address,
      serverPublicKey: info.publicKey,
      endpoint: `${home.rootAddress}:${listenPort}`,
      allowedIps: [...info.allowedNetworks, `${outsideAddress}/32`],
    });

    await waitFor(() => tcpConnects(netns, serverAddress, 3306), { description: 'a TCP connection through the tunnel', timeoutMs: 20_000, intervalMs: 200 });
    // A real login and query from the student's side of the tunnel.
    const answer = await inNetns(netns, 'mariadb', ['-h', serverAddress, '-P', '3306', '-u', 'devplein_agent', `-p${databasePassword}`, '-N', '-B', '-e', 'SELECT 6*7']);
    expect(answer.trim()).toBe('42');
    const listed = (await listPeers()).find((candidate) => candidate.publicKey === keys.publicKey);
    expect(listed?.latestHandshake).toBeInstanceOf(Date);
    expect(listed?.receivedBytes).toBeGreaterThan(0);
    expect(listed?.sentBytes).toBeGreaterThan(0);

    const droppedBefore = await droppedPackets(chain);
    expect(await tcpConnects(netns, outsideAddress, outsidePort, 2_000)).toBe(false);
    const droppedOutside = await droppedPackets(chain);
    expect(droppedOutside).toBeGreaterThan(droppedBefore);
    // The tunnel address itself, another port: dropped too, the canary never hears of it.
    expect(await tcpConnects(netns, serverAddress, canaryPort, 2_000)).toBe(false);
    expect(await droppedPackets(chain)).toBeGreaterThan(droppedOutside);
    expect(canaryConnections).toBe(0);
    // The canary itself answers from the server's own side: only the tunnel is kept out.
    await new Promise<void>((resolve, reject) => connect({ host: serverAddress, port: canaryPort }, resolve).once('error', reject));
    await waitFor(() => canaryConnections === 1, { description: 'the canary to hear a local connection', timeoutMs: 5_000 });
    // Still fine for the database.
    expect(await tcpConnects(netns, serverAddress, 3306)).toBe(true);
  }, 90_000);

  it('restores every peer after a restart on the same data dir, without stacking firewall rules', async () => {
    const before = await wgAllowedIps(iface);
    const publicKey = await wgShow(iface, 'public-key');
    expect(before.size).toBe((await storedPeers()).length);
    expect(before.size).toBeGreaterThanOrEqual(51);
    await deleteInterface(iface);
    await waitFor(async () => !(await interfaceExists(iface)), { description: `${iface} to disappear`, timeoutMs: 10_000 });

    await agent?.restart();
    // start() (if wired into the server) brings it up at once; the first call does otherwise.
    expect((await serverInfo()).publicKey).toBe(publicKey);
    await waitFor(() => interfaceExists(iface), { description: `${iface} to come back`, timeoutMs: 10_000 });
    expect(await wgAllowedIps(iface)).toEqual(before);
    expect(await wgShow(iface, 'listen-port')).toBe(String(listenPort));
    expect((await listPeers()).length).toBe(before.size);

    expect(await hookCount('INPUT', iface, chain)).toBe(1);
    expect(await hookCount('FORWARD', iface, chain)).toBe(1);
    expect((await iptablesRules(chain)).length).toBe(5);

    // Again, with the interface still there: nothing is doubled (address, hooks, rules, peers).
    await agent?.restart();
    expect((await serverInfo()).publicKey).toBe(publicKey);
    expect(await wgAllowedIps(iface)).toEqual(before);
    expect((await run('ip', ['-4', '-o', 'address', 'show', 'dev', iface])).trim().split('\n')).toHaveLength(1);
    expect(await hookCount('INPUT', iface, chain)).toBe(1);
    expect(await hookCount('FORWARD', iface, chain)).toBe(1);
    expect(await iptablesRules(chain)).toEqual(expectedRules);

    // The home client (when the tunnel test made one) reconnects to the new interface on its own.
    if (!home) return;
    // WireGuard's client starts a new handshake ~15 s after its packets go unanswered.
    await waitFor(() => tcpConnects(netns, serverAddress, 3306), { description: 'the tunnel after the restart', timeoutMs: 40_000, intervalMs: 200 });
  }, 90_000);

  it('answers UNAVAILABLE with the reason when WireGuard cannot be used', async () => {
    const certDir = path.join(workDir, 'certs');
    const broken = await startTestAgent({
      certDir,
      env: {
        AGENT_WG_INTERFACE: `dvu${suffix}`,
        // Neither wireguard-go nor wg (a host with the kernel module would not need wireguard-go).
        AGENT_WG_GO_BINARY: '/nonexistent/wireguard-go',
        AGENT_WG_BINARY: '/nonexistent/wg',
        AGENT_WG_ADDRESS_POOL: `10.206.${octet}.0/24`,
        AGENT_WG_FIREWALL: 'off',
        AGENT_CADDY_ADMIN: `http://127.0.0.1:${await findFreePort()}`,
        AGENT_RECONCILE_CRON: '0 0 1 1 *',
      },
    });
    const pems = await readClientPems(path.join(certDir, 'ca.pem'), path.join(certDir, 'control-plane.pem'), path.join(certDir, 'control-plane-key.pem'));
    const other = new VpnServiceClient(broken.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
    try {
      const error = await refusal(
        new Promise((resolve, reject) => other.getServerInfo({}, metadata(), callOptions(), (failure, response) => (failure ? reject(failure) : resolve(response)))),
      );
      expect(error.code).toBe(grpc.status.UNAVAILABLE);
      expect(error.details).toMatch(/\/nonexistent\/(wireguard-go|wg) is not installed/);
    } finally {
      other.close();
      await broken.stop();
      await deleteInterface(`dvu${suffix}`);
    }
  }, 60_000);
});
