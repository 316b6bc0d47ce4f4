/**
 * Live container events on the whole real stack: Docker's event timestamp → `DockerEventSent`
 * at a member's pusher-js client (the web app's client library), through the real agent, its
 * gRPC/mTLS event stream, the control plane's relay and soketi. Nothing faked; this script
 * starts all of it (PostgreSQL, soketi, agent, control plane) and removes it all again.
 *
 * BENCH_EVENTS (default 500) events from real state changes: BENCH_EVENT_CONTAINERS (default 2)
 * project containers, each paused / unpaused with dockerode straight on the engine, the next
 * change of a container once its last one reached the client (the containers run side by side,
 * so events sometimes queue behind each other). Each event is observed at every hop:
 *   engine   Docker's own event timestamp (timeNano, from the bench's own event subscription)
 *   agent    arrival at a second gRPC client of the agent's WatchContainerEvents (the same
 *            stream the control plane reads, on its own connection)
 *   trigger  arrival of the control plane's POST at soketi (a pass-through HTTP proxy in front
 *            of soketi notes it; the proxy's own cost is in the next hop and measured below)
 *   client   the DockerEventSent arriving at the pusher-js client on private-container.{name}
 * The floor: soketi's own trigger → receive, the pusher library triggering straight at soketi
 * (keep-alive) and pusher-js receiving on a public channel, half before and half after the
 * events; and the same through the proxy, to show what the proxy adds.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type * as PusherJs from 'pusher-js';
import pino from 'pino';
import Pusher from 'pusher';
import { createAgentClient } from '../control-plane/src/agent/agent-client.ts';
import { createKnex, migrate } from '../control-plane/src/db/knex.ts';
import { seedDemoData } from '../control-plane/src/db/seed.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent, agentLinkEnv } from '../tests/support/services/agent.ts';
import { subscribeContainerChannel, type ContainerChannel } from '../tests/support/clients/container-channel.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { ensureDockerEngine, ensureWebImage, randomSuffix, testDocker, type DockerEngine } from '../tests/support/services/docker.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { findFreePort, waitFor } from '../tests/support/clients/ports.ts';
import { startPostgres, type PostgresServer } from '../tests/support/services/postgres.ts';
import { startSoketi, type SoketiServer } from '../tests/support/services/soketi.ts';
import { Cleanups } from './lib/cleanups.ts';

const PusherClient = createRequire(import.meta.url)('pusher-js') as typeof PusherJs.default.default;

const SITE = 'dev.devplein.test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 500);
const CONTAINERS = Number(process.env.BENCH_EVENT_CONTAINERS ?? 2);
const FLOOR_TRIGGERS = Number(process.env.BENCH_FLOOR_TRIGGERS ?? 500);
/**
 * BENCH_HOPS=0: end to end only, without the proxy and the agent-stream observer (both run in
 * this process, and the proxy is on the path: on a busy machine they add to what they measure).
 */
const HOPS = process.env.BENCH_HOPS !== '0';
const EVENT_TIMEOUT_MS = 15_000;

const suffix = randomSuffix();
const docker = testDocker();
const network = `devplein-bench-${suffix}`;
const names = Array.from({ length: CONTAINERS }, (_, index) => `bench-${suffix}-${String.fromCharCode(97 + index)}`);

/** Wall-clock milliseconds with sub-millisecond resolution (comparable with Docker's timeNano on this machine). */
const wallNow = (): number => performance.timeOrigin + performance.now();

/** Nearest-rank percentile (p in 0..100). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(values: readonly number[]): string {
  const f = (value: number): string => value.toFixed(1).padStart(6);
  return `p50 ${f(percentile(values, 50))}  p95 ${f(percentile(values, 95))}  max ${f(Math.max(...values))} ms`;
}

/** One state change in flight: the time each hop saw it. */
interface Observation {
  name: string;
  action: 'pause' | 'unpause';
  message: string;
  engine?: number;
  /** When the bench's own engine subscription got the event (Docker's own delivery). */
  engineSeen?: number;
  agent?: number;
  trigger?: number;
  client?: number;
}

/** Every change so far per container name, in order (an observer may see a change after the client did). */
const changes = new Map<string, Observation[]>();

/** The oldest change of `name` with `matches` whose `hop` was not seen yet. */
function unseen(name: string, hop: 'engine' | 'agent' | 'trigger', matches: (observation: Observation) => boolean): Observation | undefined {
  return changes.get(name)?.find((observation) => observation[hop] === undefined && matches(observation));
}

/** Calls `onLine` for each JSON line of Docker's event stream until `signal` aborts. */
async function watchEngine(signal: AbortSignal): Promise<void> {
  const stream = (await docker.getEvents({ filters: { type: ['container'], event: ['pause', 'unpause'] } })) as unknown as Readable;
  signal.addEventListener('abort', () => stream.destroy(), { once: true });
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { Action?: string; timeNano?: number; Actor?: { Attributes?: Record<string, string> } };
      const observation = unseen(event.Actor?.Attributes?.name ?? '', 'engine', (o) => o.action === event.Action);
      if (observation && event.timeNano) {
        observation.engine = event.timeNano / 1e6;
        observation.engineSeen = wallNow();
      }
    }
  });
  stream.on('error', () => undefined);
}

/** Pusher's HTTP API bodies: /events (one event, several channels) and /batch_events. */
type TriggerBody = { name?: string; channels?: string[]; data?: string; batch?: Array<{ name?: string; channel?: string; data?: string }> };

/** A pass-through HTTP proxy in front of soketi that notes when each triggered message arrived. */
async function startTriggerProxy(soketi: SoketiServer): Promise<{ port: number; triggers: number; batches: number; stop: () => Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true });
  const counts = { triggers: 0, batches: 0 };
  const server = http.createServer((request, response) => {
    const arrived = wallNow();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString('utf8')) as TriggerBody;
        const messages = parsed.batch
          ? parsed.batch.map((entry) => ({ channel: entry.channel ?? '', name: entry.name, data: entry.data }))
          : (parsed.channels ?? []).map((channel) => ({ channel, name: parsed.name, data: parsed.data }));
        if (parsed.batch) counts.batches += 1;
        else counts.triggers += 1;
        for (const { channel, name, data } of messages) {
          if (name !== 'DockerEventSent' || !data) continue;
          const message = (JSON.parse(data) as { message?: string }).message;
          const observation = unseen(channel.replace(/^private-container\./, ''), 'trigger', (o) => o.message === message);
          if (observation) observation.trigger = arrived;
        }
      } catch {
        // Not a trigger body: passed on as it is.
      }
      const forward = http.request(
        { host: soketi.host, port: soketi.port, method: request.method, path: request.url, headers: request.headers, agent },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => {
        response.writeHead(502);
        response.end();
      });
      forward.end(body);
    });
  });
  const port = await findFreePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    get triggers() {
      return counts.triggers;
    },
    get batches() {
      return counts.batches;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** soketi's own trigger → receive: the pusher library (keep-alive) → soketi (at `port`) → pusher-js on a public channel. */
async function floor(soketi: SoketiServer, port: number, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true });
  const realtime = new Pusher({ appId: soketi.appId, key: soketi.key, secret: soketi.secret, host: soketi.host, port: String(port), useTLS: false, agent });
  const client = new PusherClient(soketi.key, { cluster: 'eu', wsHost: soketi.host, wsPort: soketi.port, forceTLS: false, enabledTransports: ['ws'] });
  const channelName = `bench-floor-${randomSuffix()}`;
  const latencies: number[] = [];
  try {
    const channel = client.subscribe(channelName);
    await new Promise<void>((resolve) => channel.bind('pusher:subscription_succeeded', () => resolve()));
    let waiting: ((at: number) => void) | undefined;
    channel.bind('floor', () => waiting?.(wallNow()));
    for (let index = 0; index < count; index++) {
      const arrived = new Promise<number>((resolve) => (waiting = resolve));
      const sent = wallNow();
      // The answer read to its end, so the connection goes back to the agent.
      await (await realtime.trigger(channelName, 'floor', { message: String(index) })).text();
      latencies.push((await arrived) - sent);
    }
  } finally {
    client.disconnect();
    agent.destroy();
  }
  return latencies;
}

async function insertProject(knex: Knex, name: string, imageId: number, userId: number): Promise<number> {
  const [row] = await knex('projects')
    .insert({ name, domain: `${name}.${SITE}`, description: `Benchmarkproject ${name} voor de event-benchmark van devplein.`, visible: false, docker_image_id: imageId, validated: true })
    .returning<{ id: number }[]>('id');
  const id = Number(row?.id);
  await knex('project_user').insert({ project_id: id, user_id: userId, position: 0 });
  return id;
}

/** One container's share of the events: pause / unpause, each once the last reached the client. */
async function changeStates(name: string, channel: ContainerChannel, count: number, done: Observation[]): Promise<void> {
  const container = docker.getContainer(name);
  for (let index = 0; index < count; index++) {
    const pause = index % 2 === 0;
    const observation: Observation = { name, action: pause ? 'pause' : 'unpause', message: pause ? 'paused' : 'running' };
    const arrived = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no DockerEventSent '${observation.message}' on ${name} within ${EVENT_TIMEOUT_MS} ms (last ${JSON.stringify(channel.messages.slice(-5))})`));
      }, EVENT_TIMEOUT_MS);
      const stop = channel.onMessage((message) => {
        if (message !== observation.message) return;
        observation.client = wallNow();
        clearTimeout(timer);
        stop();
        resolve();
      });
    });
    const list = changes.get(name) ?? [];
    changes.set(name, list);
    list.push(observation);
    await (pause ? container.pause() : container.unpause());
    await arrived;
    done.push(observation);
    // Under load the engine may apply containerd's report of the change before last after this
    // one; the next change waits until the engine's own state agrees (outside the measured hops).
    await waitFor(async () => (await container.inspect()).State.Paused === pause, { description: `${name} ${pause ? 'paused' : 'running'} per inspect`, timeoutMs: EVENT_TIMEOUT_MS, intervalMs: 5 });
  }
}

async function main(): Promise<void> {
  const cleanups = new Cleanups();

  try {
    const engine: DockerEngine = await ensureDockerEngine();
    if (engine.stop) cleanups.add('the Docker engine', engine.stop);
    const image = await ensureWebImage();
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-events-'));
    cleanups.add('the work dir', () => rm(workDir, { recursive: true, force: true }));
    cleanups.add(`network ${network}`, () => docker.getNetwork(network).remove().catch(() => undefined));
    cleanups.add('the containers', () => Promise.all(names.map((name) => docker.getContainer(name).remove({ force: true }).catch(() => undefined))));

    const postgres: PostgresServer = await startPostgres();
    cleanups.add('PostgreSQL', () => postgres.stop());
    const database = `devplein_bench_events_${suffix.replace(/[^a-z0-9]/g, '')}`;
    const databaseUrl = postgres.url.replace(/\/postgres$/, `/${database}`);
    const admin = createKnex({ databaseUrl: postgres.url, dataDir: workDir });
    await admin.raw(`create database ${database}`);
    cleanups.add('the database', async () => {
      await admin.raw(`drop database if exists ${database} with (force)`);
      await admin.destroy();
    });
    const knex = createKnex({ databaseUrl, dataDir: workDir });
    cleanups.add('the database pool', () => knex.destroy());
    await migrate(knex);
    await seedDemoData(knex);
    await knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    const imageId = Number((await knex('docker_images').where({ name: 'Statische site' }).first<{ id: number }>('id')).id);
    const owner = await knex('users').whereNotNull('email_verified_at').whereNull('disabled_at').orderBy('id').first<{ id: number; email: string }>('id', 'email');

    const soketi = await startSoketi();
    cleanups.add('soketi', () => soketi.stop());
    const proxy = await startTriggerProxy(soketi);
    cleanups.add('the trigger proxy', () => proxy.stop());
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const agent: TestAgent = await startTestAgent({
      certDir: certs.dir,
      env: { AGENT_DOCKER_NETWORK: network, AGENT_SSH_BIND_ADDRESS: '127.0.0.1', AGENT_DATA_DIR: path.join(workDir, 'agent-data') },
    });
    cleanups.add('the agent', () => agent.stop());
    const app = await startControlPlane({
      databaseUrl,
      env: {
        LOG_LEVEL: 'warn',
        SITE_DOMAIN: SITE,
        DATA_DIR: path.join(workDir, 'control-plane-data'),
        ...agentLinkEnv(agent.address, certs),
        AGENT_DEADLINE_MS: '5000',
        REALTIME_HOST: soketi.host,
        REALTIME_PORT: String(HOPS ? proxy.port : soketi.port),
        REALTIME_PUBLIC_HOST: soketi.host,
        REALTIME_PUBLIC_PORT: String(soketi.port),
        REALTIME_APP_ID: soketi.appId,
        REALTIME_KEY: soketi.key,
        REALTIME_SECRET: soketi.secret,
      },
    });
    cleanups.add('the control plane', () => app.stop());

    const session = new HttpSession(app.url);
    const landing = await session.signIn(owner.email);
    if (landing.status !== 200) throw new Error(`sign-in of ${owner.email} answered ${landing.status}`);
    for (const name of names) {
      const projectId = await insertProject(knex, name, imageId, owner.id);
      const { status, body } = await session.json<Array<{ State: string }>>('POST', '/api/user/dockers', { id: projectId });
      if (status !== 200 || body[0]?.State !== 'running') throw new Error(`creating ${name} answered ${status} ${JSON.stringify(body)}`);
    }
    const channels = await Promise.all(names.map((name) => subscribeContainerChannel({ session, name, soketi })));
    cleanups.add('the pusher-js clients', async () => channels.forEach((channel) => channel.close()));

    // The bench's own observers of the engine and of the agent's stream.
    const watching = new AbortController();
    cleanups.add('the observers', async () => watching.abort());
    await watchEngine(watching.signal);
    const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
    const agentClient = createAgentClient({ address: agent.address, ...pems, deadlineMs: 5_000, logger: pino({ level: 'silent' }) });
    cleanups.add('the agent client', async () => agentClient.close());
    if (HOPS) void (async () => {
      for await (const event of agentClient.containers.watchContainerEvents({ includeUnmanaged: false }, { signal: watching.signal })) {
        const observation = unseen(event.containerName, 'agent', (o) => o.action === event.action);
        if (observation) observation.agent = wallNow();
      }
    })().catch(() => undefined);

    const floorBefore = await floor(soketi, soketi.port, Math.floor(FLOOR_TRIGGERS / 2));
    const viaProxyBefore = await floor(soketi, proxy.port, Math.floor(FLOOR_TRIGGERS / 4));
    // Warm-up, not recorded (connections, first queries): pause + unpause until every hop saw the last change.
    for (let round = 0; ; round++) {
      const warmUp: Observation[] = [];
      await Promise.all(names.map((name, index) => changeStates(name, channels[index]!, 2, warmUp)));
      if (warmUp.slice(-CONTAINERS).every((o) => o.engine !== undefined && (!HOPS || (o.agent !== undefined && o.trigger !== undefined)))) break;
      if (round === 20) throw new Error('after 20 warm-up rounds some hop still does not see the changes');
    }
    changes.clear();
    const clockSkewBefore = Date.now() - wallNow();
    const observations: Observation[] = [];
    const triggersBefore = proxy.triggers;
    const batchesBefore = proxy.batches;
    const started = performance.now();
    await Promise.all(names.map((name, index) => changeStates(name, channels[index]!, Math.ceil(EVENTS / CONTAINERS), observations)));
    const wall = performance.now() - started;
    const triggers = proxy.triggers - triggersBefore;
    const batches = proxy.batches - batchesBefore;
    const clockSkewAfter = Date.now() - wallNow();
    const floorAfter = await floor(soketi, soketi.port, Math.ceil(FLOOR_TRIGGERS / 2));
    const viaProxyAfter = await floor(soketi, proxy.port, Math.ceil(FLOOR_TRIGGERS / 4));

    const complete = observations.filter((o) => o.engine !== undefined && o.client !== undefined && (!HOPS || (o.agent !== undefined && o.trigger !== undefined))) as Array<Required<Observation>>;
    console.log(`Stack up (Docker ${(await docker.version()).Version}, image ${image}); ${observations.length} events in ${(wall / 1000).toFixed(1)} s`);
    console.log(`${CONTAINERS} containers side by side, each paused / unpaused with dockerode, its next change once the last reached the client`);
    console.log(
      HOPS
        ? `${complete.length} of ${observations.length} events seen at every hop; control plane → soketi: ${triggers} single triggers, ${batches} batches`
        : `${complete.length} of ${observations.length} events seen at the engine and the client`,
    );
    console.log(`(clock: performance vs Date.now drifted ${(clockSkewAfter - clockSkewBefore).toFixed(2)} ms over the run)`);
    console.log(HOPS ? 'Per hop:' : 'Per hop: not observed (BENCH_HOPS=0: no proxy, no agent-stream observer)');
    console.log(`  (engine → the bench's own Docker event subscription ${summary(complete.map((o) => o.engineSeen - o.engine))}: Docker's own delivery)`);
    if (HOPS) {
      console.log(`  engine → agent stream            ${summary(complete.map((o) => o.agent - o.engine))}`);
      console.log(`  agent stream → trigger at soketi ${summary(complete.map((o) => o.trigger - o.agent))}   (control plane relay)`);
      console.log(`  trigger at soketi → client       ${summary(complete.map((o) => o.client - o.trigger))}   (proxy + soketi + websocket)`);
    }
    console.log('End to end:');
    console.log(`  engine → client                  ${summary(complete.map((o) => o.client - o.engine))}`);
    console.log('Floor (same run):');
    const floorAll = [...floorBefore, ...floorAfter];
    const viaProxy = [...viaProxyBefore, ...viaProxyAfter];
    console.log(`  soketi trigger → receive         ${summary(floorAll)}   (pusher library straight at soketi, ${floorAll.length} triggers)`);
    console.log(`  the same through the proxy       ${summary(viaProxy)}   (${viaProxy.length} triggers)`);
    const e2e = complete.map((o) => o.client - o.engine);
    console.log(
      `Ratios: end-to-end p50 / floor p50 ${(percentile(e2e, 50) / percentile(floorAll, 50)).toFixed(1)}x, ` +
        `p95 / floor p95 ${(percentile(e2e, 95) / percentile(floorAll, 95)).toFixed(1)}x; goal p95 ≤ 25 ms, max ≤ 60 ms`,
    );
  } finally {
    await cleanups.run();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
