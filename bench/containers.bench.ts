/**
 * Container hosting on the whole real stack, nothing faked: the control plane's HTTP API →
 * gRPC/mTLS → the host agent → the real Docker engine and Caddy, with container events through
 * the real soketi. This script starts all of it (PostgreSQL, soketi, Caddy, agent, control
 * plane) and removes it all again, also after a failure.
 * a. Action overhead: stop + start of one project container through the API (each call answers
 *    when done) vs `docker stop` + `docker start` on the same container through the docker CLI;
 *    median and p95 per action, and the API/CLI ratio of the medians.
 * b. Event latency: pause/unpause straight on the engine (dockerode) until DockerEventSent with
 *    the new state reaches a member's pusher-js client on private-container.{name}.
 * c. 20 students create 20 containers at the same moment (POST /api/user/dockers); every answer
 *    must be 200 'running' and Caddy must route every domain.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { createKnex, migrate } from '../control-plane/src/db/knex.ts';
import { seedDemoData } from '../control-plane/src/db/seed.ts';
import { makeTestCerts, startTestAgent, type TestAgent, agentLinkEnv } from '../tests/support/services/agent.ts';
import { startCaddy, visitSite, type TestCaddy } from '../tests/support/services/caddy.ts';
import { subscribeContainerChannel, type ContainerChannel } from '../tests/support/clients/container-channel.ts';
import { startControlPlane, type RunningControlPlane } from '../tests/support/services/control-plane.ts';
import { ensureDockerEngine, ensureWebImage, randomSuffix, testDocker, type DockerEngine } from '../tests/support/services/docker.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { waitFor } from '../tests/support/clients/ports.ts';
import { startPostgres, type PostgresServer } from '../tests/support/services/postgres.ts';
import { startSoketi, type SoketiServer } from '../tests/support/services/soketi.ts';
import { Cleanups } from './lib/cleanups.ts';

const execFileAsync = promisify(execFile);

const SITE = 'dev.devplein.test';
const ACTION_ROUNDS = Number(process.env.BENCH_ACTION_ROUNDS ?? 20);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100);
const STUDENTS = 20;
const EVENT_TIMEOUT_MS = 15_000;

const suffix = randomSuffix();
/** Container names are global on the engine: unique per run. */
const actionName = `bench-${suffix}`;
const network = `devplein-bench-${suffix}`;
const docker = testDocker();

/** Project names allow only a-z and hyphens: number → letters (0 → 'a', 26 → 'ba'). */
function letters(index: number): string {
  let text = '';
  let rest = index;
  do {
    text = String.fromCharCode(97 + (rest % 26)) + text;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return text;
}

const createNames = Array.from({ length: STUDENTS }, (_, index) => `bench-${suffix}-${letters(index)}`);

/** Nearest-rank percentile (p in 0..100). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

type Docker = { State: string; Name?: string };

/** One API call that must answer 200 with one card in `state`. */
async function apiAction(session: HttpSession, method: string, url: string, body: unknown, state: string): Promise<void> {
  const { status, body: answer } = await session.json<Docker[]>(method, url, body);
  if (status !== 200 || answer[0]?.State !== state) {
    throw new Error(`${method} ${url} answered ${status} ${JSON.stringify(answer)} (expected 200 with State '${state}')`);
  }
}

async function dockerCli(args: string[]): Promise<void> {
  await execFileAsync('docker', args);
}

async function insertProject(knex: Knex, name: string, imageId: number, userId: number): Promise<number> {
  const [row] = await knex('projects')
    .insert({
      name,
      domain: `${name}.${SITE}`,
      description: `Benchmarkproject ${name} voor de container-benchmark van devplein.`,
      visible: false,
      docker_image_id: imageId,
      validated: true,
    })
    .returning<{ id: number }[]>('id');
  const id = Number(row?.id);
  await knex('project_user').insert({ project_id: id, user_id: userId, position: 0 });
  return id;
}

/** The engine state, as `docker ps` shows it (undefined: no such container). */
async function engineState(name: string): Promise<string | undefined> {
  const [info] = await docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
  return info?.State;
}

/** a. stop + start through the API vs through the docker CLI, on the same container, rounds alternating. */
async function actionOverhead(session: HttpSession, projectId: number): Promise<void> {
  const api = { stop: [] as number[], start: [] as number[] };
  const cli = { stop: [] as number[], start: [] as number[] };
  const apiRound = async (record: boolean) => {
    const stop = await timed(() => apiAction(session, 'PUT', `/api/user/dockers/${projectId}?action=stop`, undefined, 'exited'));
    const start = await timed(() => apiAction(session, 'PUT', `/api/user/dockers/${projectId}?action=start`, undefined, 'running'));
    if (record) {
      api.stop.push(stop.ms);
      api.start.push(start.ms);
    }
  };
  const cliRound = async (record: boolean) => {
    const stop = await timed(() => dockerCli(['stop', actionName]));
    const start = await timed(() => dockerCli(['start', actionName]));
    if (record) {
      cli.stop.push(stop.ms);
      cli.start.push(start.ms);
    }
  };
  // One unrecorded round of each first (connections, caches), then API and CLI rounds alternate.
  await apiRound(false);
  await cliRound(false);
  for (let round = 0; round < ACTION_ROUNDS; round++) {
    await apiRound(true);
    await cliRound(true);
  }
  const state = await engineState(actionName);
  if (state !== 'running') throw new Error(`after the rounds the container is ${state}, not running`);

  console.log(`a. Action overhead: ${ACTION_ROUNDS} rounds of stop + start on one container (after 1 warm-up round each; API and CLI rounds alternate)`);
  console.log('   API = PUT /api/user/dockers/{id}?action=… (answers when done; control plane → gRPC/mTLS → agent → engine, + Caddy route)');
  console.log('   CLI = execFile docker stop|start (docker CLI process → engine)');
  for (const action of ['stop', 'start'] as const) {
    const apiMedian = percentile(api[action], 50);
    const cliMedian = percentile(cli[action], 50);
    console.log(
      `   ${action.padEnd(5)}  API median ${ms(apiMedian)}, p95 ${ms(percentile(api[action], 95))}  |  ` +
        `CLI median ${ms(cliMedian)}, p95 ${ms(percentile(cli[action], 95))}  |  API/CLI ${(apiMedian / cliMedian).toFixed(2)}x`,
    );
  }
}

/** Waits for the next DockerEventSent equal to `expected`, as `channel` receives it; resolves with performance.now() at arrival. */
function nextMessage(channel: ContainerChannel, expected: string): { arrived: Promise<number>; cancel: () => void } {
  let cancel = (): void => undefined;
  const arrived = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no DockerEventSent '${expected}' within ${EVENT_TIMEOUT_MS} ms (last messages ${JSON.stringify(channel.messages.slice(-5))})`));
    }, EVENT_TIMEOUT_MS);
    const stop = channel.onMessage((message) => {
      if (message !== expected) return;
      const at = performance.now();
      clearTimeout(timer);
      stop();
      resolve(at);
    });
    cancel = () => {
      clearTimeout(timer);
      stop();
    };
  });
  return { arrived, cancel };
}

/** b. Engine call → DockerEventSent at a subscribed member, alternately pause / unpause. */
async function eventLatency(session: HttpSession, soketi: SoketiServer): Promise<void> {
  const channel = await subscribeContainerChannel({ session, name: actionName, soketi });
  const container = docker.getContainer(actionName);
  const latencies: number[] = [];
  try {
    for (let index = 0; index < EVENTS; index++) {
      const pause = index % 2 === 0;
      const waiting = nextMessage(channel, pause ? 'paused' : 'running');
      const t0 = performance.now();
      try {
        await (pause ? container.pause() : container.unpause());
      } catch (error) {
        waiting.cancel();
        throw error;
      }
      latencies.push((await waiting.arrived) - t0);
    }
  } finally {
    channel.close();
    if ((await engineState(actionName)) === 'paused') await container.unpause();
  }
  console.log(`b. Event latency: ${EVENTS} events, alternately pause / unpause with dockerode straight on the engine`);
  console.log('   measured: just before the engine call → the DockerEventSent with the new state (paused / running) arriving at a member\'s');
  console.log('   pusher-js client on private-container.{name} (includes the engine call itself, the agent\'s event stream + state lookup,');
  console.log('   the gRPC stream to the control plane, its trigger to soketi and soketi → websocket)');
  console.log(`   p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))}`);
}

/** c. 20 signed-in students, one project each, all POST /api/user/dockers at the same moment. */
async function concurrentCreates(app: RunningControlPlane, caddy: TestCaddy, students: Array<{ email: string; projectId: number; name: string }>): Promise<void> {
  const sessions = await Promise.all(
    students.map(async (student) => {
      const session = new HttpSession(app.url);
      const landing = await session.signIn(student.email);
      if (landing.status !== 200) throw new Error(`sign-in of ${student.email} answered ${landing.status}`);
      return session;
    }),
  );
  const started = performance.now();
  const answers = await Promise.all(
    students.map(async (student, index) => {
      const answer = await timed(() => sessions[index]!.json<Docker[]>('POST', '/api/user/dockers', { id: student.projectId }));
      return { ...student, ms: answer.ms, status: answer.value.status, body: answer.value.body };
    }),
  );
  const wall = performance.now() - started;
  const failed = answers.filter((answer) => answer.status !== 200 || answer.body[0]?.State !== 'running');
  if (failed.length > 0) {
    throw new Error(
      `${failed.length} of ${answers.length} creates did not answer 200 'running':\n` +
        failed.map((answer) => `  ${answer.name}: ${answer.status} ${JSON.stringify(answer.body)}`).join('\n'),
    );
  }
  const slowest = answers.reduce((a, b) => (b.ms > a.ms ? b : a));
  console.log(`c. ${students.length} containers created at once: ${students.length} signed-in students, one project each, all POST /api/user/dockers together`);
  console.log(`   all ${answers.length} answered 200 with State 'running'; wall time ${ms(wall)}, slowest single answer ${ms(slowest.ms)}, median ${ms(percentile(answers.map((answer) => answer.ms), 50))}`);

  // Caddy: every domain routed to its container (the create answers after adding the route).
  const firstTry = await Promise.all(students.map(async (student) => (await visitSite(caddy.httpPort, `${student.name}.${SITE}`)).status));
  for (const student of students) {
    const domain = `${student.name}.${SITE}`;
    await waitFor(async () => (await visitSite(caddy.httpPort, domain)).status === 200, { description: `Caddy routing ${domain} (200)`, timeoutMs: 10_000 });
  }
  console.log(`   Caddy routes every domain: GET / with Host {name}.${SITE} answers 200 for all ${students.length} (${firstTry.filter((status) => status === 200).length} on the first try)`);
}

async function main(): Promise<void> {
  const cleanups = new Cleanups();

  try {
    const engine: DockerEngine = await ensureDockerEngine();
    if (engine.stop) cleanups.add('the Docker engine', engine.stop);
    const image = await ensureWebImage();
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-containers-'));
    cleanups.add('the work dir', () => rm(workDir, { recursive: true, force: true }));
    // Containers and network: registered first, so they go after the agent and control plane have stopped.
    cleanups.add(`network ${network}`, () => docker.getNetwork(network).remove().catch(() => undefined));
    cleanups.add('the containers', () => Promise.all([actionName, ...createNames].map((name) => docker.getContainer(name).remove({ force: true }).catch(() => undefined))));

    const postgres: PostgresServer = await startPostgres();
    cleanups.add('PostgreSQL', () => postgres.stop());
    const databaseUrl = postgres.url.replace(/\/postgres$/, '/devplein_bench_containers');
    const admin = createKnex({ databaseUrl: postgres.url, dataDir: workDir });
    await admin.raw('create database devplein_bench_containers');
    await admin.destroy();
    const knex = createKnex({ databaseUrl, dataDir: workDir });
    cleanups.add('the database pool', () => knex.destroy());
    await migrate(knex);
    await seedDemoData(knex);
    const updated = await knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    if (updated !== 1) throw new Error(`expected one 'Statische site' docker image option, found ${updated}`);
    const imageId = Number((await knex('docker_images').where({ name: 'Statische site' }).first<{ id: number }>('id')).id);
    const users = await knex('users').whereNotNull('email_verified_at').whereNull('disabled_at').orderBy('id').limit(STUDENTS).select<{ id: number; email: string }[]>('id', 'email');
    if (users.length < STUDENTS) throw new Error(`the seed has ${users.length} activated users, ${STUDENTS} needed`);

    const soketi = await startSoketi();
    cleanups.add('soketi', () => soketi.stop());
    const caddy = await startCaddy();
    cleanups.add('Caddy', () => caddy.stop());
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const agent: TestAgent = await startTestAgent({
      certDir: certs.dir,
      env: {
        AGENT_CADDY_ADMIN: caddy.adminUrl,
        AGENT_CADDY_SERVER: caddy.serverName,
        AGENT_DOCKER_NETWORK: network,
        AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
        AGENT_DATA_DIR: path.join(workDir, 'agent-data'),
      },
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
        REALTIME_PORT: String(soketi.port),
        REALTIME_APP_ID: soketi.appId,
        REALTIME_KEY: soketi.key,
        REALTIME_SECRET: soketi.secret,
      },
    });
    cleanups.add('the control plane', () => app.stop());

    // a + b: one project container, its first member signed in.
    const owner = users[0]!;
    const actionProjectId = await insertProject(knex, actionName, imageId, owner.id);
    const session = new HttpSession(app.url);
    const landing = await session.signIn(owner.email);
    if (landing.status !== 200) throw new Error(`sign-in of ${owner.email} answered ${landing.status}`);
    const created = await timed(() => apiAction(session, 'POST', '/api/user/dockers', { id: actionProjectId }, 'running'));
    console.log(`Stack up (Docker ${(await docker.version()).Version}, image ${image}); first container created through the API in ${ms(created.ms)}`);
    await actionOverhead(session, actionProjectId);
    await eventLatency(session, soketi);

    // c: one project per student.
    const students = [];
    for (const [index, user] of users.entries()) {
      const name = createNames[index]!;
      students.push({ email: user.email, name, projectId: await insertProject(knex, name, imageId, user.id) });
    }
    await concurrentCreates(app, caddy, students);
  } finally {
    await cleanups.run();
    const left = await docker.listContainers({ all: true, filters: { name: [`bench-${suffix}`] } }).catch(() => []);
    if (left.length > 0) console.error(`cleanup: containers left: ${left.map((info) => info.Names.join(',')).join(' ')}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
