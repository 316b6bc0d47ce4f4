/**
 * The class-start rush (issue 19) on the whole real stack: the control plane's HTTP API →
 * gRPC/mTLS → the host agent → the real Docker engine and Caddy, with container events through
 * the real soketi and the after-start screenshots through the agent's real Chromium. Half the
 * students have a static site, half an SSH image (so the SSH port choice is exercised).
 *
 * Three bursts of 30 students, each side by side with its floor measured in the same run, the
 * floor first: the same work done by the docker CLI, 30 processes started at once on 30 other
 * containers of the same images (same isolation options, same kind of network):
 *   1. create: 30 × POST /api/user/dockers vs 30 × `docker run -d`; afterwards every API
 *      container must be running and routed by Caddy;
 *   2. stop:   30 × PUT …?action=stop vs 30 × `docker stop`;
 *   3. start:  30 × PUT …?action=start vs 30 × `docker start`; routed again afterwards.
 * Then the 30 screenshot captures that follow the starts (THUMBNAIL_AFTER_START_S, its default 20 s,
 * so they begin after a burst as in a lesson; the bench waits for the ones the creates caused
 * before it stops the containers): p50/p99 of
 * GET /api/user/dockers while they run, against the same requests on the idle stack just before.
 * Printed with the bursts: the agent's time per step of a create (bench/lib/agent-create-steps.ts)
 * and the CPU dockerd, containerd, agent and control plane used during each burst (the machine
 * has few cores: the API's own work competes with the engine's). `BENCH_STUDENTS` changes the 30.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { slugifyName } from '../control-plane/src/lib/slugify-name.ts';
import { STOP_TIMEOUT_SECONDS } from '../host-agent/src/drivers/docker/docker-driver.ts';
import { agentLinkEnv, makeTestCerts, startTestAgent } from '../tests/support/services/agent.ts';
import { startCaddy, visitSite, type TestCaddy } from '../tests/support/services/caddy.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { ensureDockerEngine, ensureWebImage, randomSuffix, testDocker } from '../tests/support/services/docker.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { waitFor } from '../tests/support/clients/ports.ts';
import { startSoketi } from '../tests/support/services/soketi.ts';
import { ensureSshImage, SSH_IMAGE_CAPABILITIES } from '../tests/support/fixtures/ssh-image.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { agentCreateSteps } from './lib/agent-create-steps.ts';
import { Cleanups } from './lib/cleanups.ts';
import { cpuDuring } from './lib/process-cpu.ts';
import { letters } from './lib/school-scale.ts';

const execFileAsync = promisify(execFile);

const SITE = 'dev.devplein.test';
const STUDENTS = Number(process.env.BENCH_STUDENTS ?? 30);
/** Signed-in students asking GET /api/user/dockers in a loop during the captures (and on the idle stack). */
const READERS = 5;
const IDLE_WINDOW_MS = 5_000;

const suffix = randomSuffix();
const docker = testDocker();
const agentNetwork = `devplein-bench-${suffix}`;
const cliNetwork = `devplein-bench-cli-${suffix}`;
/** SSH ports: the agent's range and the CLI's own, far apart; random so parallel runs do not meet. */
const sshBase = 42_000 + Math.floor(Math.random() * 100) * 100;
const agentSshRange = { first: sshBase, last: sshBase + 99 };
const cliSshFirst = sshBase + 10_000;

/** Nearest-rank percentile (p in 0..100). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number): string => `${value.toFixed(0)} ms`;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

interface Student {
  email: string;
  userId: number;
  projectId: number;
  /** Project (and container) name of the API's container. */
  name: string;
  /** The CLI floor's container of the same image. */
  cliName: string;
  ssh: boolean;
  session: HttpSession;
}

type Card = { State: string };

/** One API call per student, all at once; each must answer 200 with a card in `state`. Returns the wall time and each answer's time. */
async function apiBurst(students: Student[], call: (student: Student) => Promise<{ status: number; body: Card[] }>, state: string): Promise<{ wall: number; answers: number[] }> {
  const { ms: wall, value: answers } = await timed(() =>
    Promise.all(
      students.map(async (student) => {
        const { ms: took, value: answer } = await timed(() => call(student));
        return { student, answer, took };
      }),
    ),
  );
  const failed = answers.filter(({ answer }) => answer.status !== 200 || answer.body[0]?.State !== state);
  if (failed.length > 0) {
    throw new Error(`${failed.length} of ${answers.length} answers were not 200 '${state}':\n${failed.map(({ student, answer }) => `  ${student.name}: ${answer.status} ${JSON.stringify(answer.body)}`).join('\n')}`);
  }
  return { wall, answers: answers.map(({ took }) => took) };
}

/** One docker CLI process per student, all at once. Returns the wall time. */
async function cliBurst(students: Student[], args: (student: Student, index: number) => string[]): Promise<number> {
  return (await timed(() => Promise.all(students.map((student, index) => execFileAsync('docker', args(student, index)))))).ms;
}

/** `docker run -d` with the isolation options the agent gives a project container. */
function cliRunArgs(student: Student, index: number, images: { web: string; ssh: string }): string[] {
  return [
    'run', '-d', '--name', student.cliName, '--network', cliNetwork, '--init', '--restart', 'unless-stopped',
    '--memory', '256m', '--memory-swap', '256m', '--pids-limit', '256', '--security-opt', 'no-new-privileges',
    '--cap-drop', 'ALL', ...(student.ssh ? SSH_IMAGE_CAPABILITIES.flatMap((capability) => ['--cap-add', capability]) : []),
    '--log-opt', 'max-size=10m', '--log-opt', 'max-file=3', '-p', '127.0.0.1::80',
    ...(student.ssh ? ['-p', `127.0.0.1:${cliSshFirst + index}:22`] : []),
    '--label', `devplein-bench=${suffix}`,
    student.ssh ? images.ssh : images.web,
  ];
}

async function engineStates(names: string[]): Promise<string[]> {
  const infos = await docker.listContainers({ all: true, filters: { name: [suffix] } });
  const byName = new Map(infos.map((info) => [(info.Names[0] ?? '').replace(/^\//, ''), info.State]));
  return names.map((name) => byName.get(name) ?? 'missing');
}

async function expectStates(names: string[], state: string, who: string): Promise<void> {
  const states = await engineStates(names);
  const wrong = names.filter((_, index) => states[index] !== state);
  if (wrong.length > 0) throw new Error(`${who}: ${wrong.length} containers are not ${state}: ${wrong.join(' ')}`);
}

/** Caddy routes every API container: GET / with its Host answers 200. Returns how many did on the first try. */
async function expectRouted(caddy: TestCaddy, students: Student[]): Promise<number> {
  const first = await Promise.all(students.map(async (student) => (await visitSite(caddy.httpPort, `${student.name}.${SITE}`)).status));
  for (const student of students) {
    const domain = `${student.name}.${SITE}`;
    await waitFor(async () => (await visitSite(caddy.httpPort, domain)).status === 200, { description: `Caddy routing ${domain}`, timeoutMs: 15_000 });
  }
  return first.filter((status) => status === 200).length;
}

function printBurst(what: string, api: { wall: number; answers: number[] }, cli: number): void {
  console.log(
    `   ${what.padEnd(6)} API ${ms(api.wall).padStart(8)} (answers: median ${ms(percentile(api.answers, 50))}, first ${ms(Math.min(...api.answers))})  |  ` +
      `CLI ${ms(cli).padStart(8)}  |  API/CLI ${(api.wall / cli).toFixed(2)}x  (goal ≤ 1.30x)`,
  );
}

/** READERS students GET /api/user/dockers one after another each, until `done()`; every answer's time. */
async function readDockersUntil(readers: Student[], done: () => boolean | Promise<boolean>): Promise<number[]> {
  const times: number[] = [];
  let finished = false;
  const loops = readers.map(async (student) => {
    while (!finished) {
      const { ms: took, value } = await timed(() => student.session.json<Card[]>('GET', '/api/user/dockers'));
      if (value.status !== 200) throw new Error(`GET /api/user/dockers answered ${value.status}`);
      times.push(took);
    }
  });
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 100));
  finished = true;
  await Promise.all(loops);
  return times;
}

async function insertStudents(knex: Knex, images: { webId: number; sshId: number }): Promise<Array<Omit<Student, 'session'>>> {
  const students: Array<Omit<Student, 'session'>> = [];
  for (let index = 0; index < STUDENTS; index += 1) {
    const name = `Klas ${suffix} ${letters(index)}`;
    const [user] = await knex('users')
      .insert({ name, name_slug: slugifyName(name), email: `class.${suffix}.${index}@student.devplein.test`, email_verified_at: '2024-09-02T08:00:00Z' })
      .returning<{ id: number }[]>('id');
    const userId = Number(user?.id);
    const projectName = `class-${suffix}-${letters(index)}`;
    const ssh = index % 2 === 1;
    const [project] = await knex('projects')
      .insert({ name: projectName, domain: `${projectName}.${SITE}`, description: `Benchmarkproject ${projectName} van de klasstart.`, visible: false, validated: true, docker_image_id: ssh ? images.sshId : images.webId })
      .returning<{ id: number }[]>('id');
    const projectId = Number(project?.id);
    await knex('project_user').insert({ project_id: projectId, user_id: userId, position: 0 });
    students.push({ email: `class.${suffix}.${index}@student.devplein.test`, userId, projectId, name: projectName, cliName: `cli-${suffix}-${letters(index)}`, ssh });
  }
  return students;
}

async function main(): Promise<void> {
  const cleanups = new Cleanups();

  try {
    const engine = await ensureDockerEngine();
    if (engine.stop) cleanups.add('the Docker engine', engine.stop);
    const [web, ssh] = await Promise.all([ensureWebImage(), ensureSshImage()]);
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-class-start-'));
    cleanups.add('the work dir', () => rm(workDir, { recursive: true, force: true }));
    // Containers and networks: registered first, so they go after the agent and control plane have stopped.
    cleanups.add(`network ${agentNetwork}`, () => docker.getNetwork(agentNetwork).remove().catch(() => undefined));
    cleanups.add(`network ${cliNetwork}`, () => docker.getNetwork(cliNetwork).remove().catch(() => undefined));
    cleanups.add('the containers', async () => {
      const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } });
      await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
    });
    await docker.createNetwork({ Name: cliNetwork, Driver: 'bridge', Options: { 'com.docker.network.bridge.enable_icc': 'false' } });

    const database = await startBenchDatabase('devplein_bench_class_start');
    cleanups.add('PostgreSQL', () => database.stop());
    const knex = database.knex;
    cleanups.add('the database pool', () => knex.destroy());
    const option = async (name: string, values: object): Promise<number> => {
      const updated = await knex('docker_images').where({ name }).update(values);
      if (updated !== 1) throw new Error(`expected one '${name}' docker image option, found ${updated}`);
      return Number((await knex('docker_images').where({ name }).first<{ id: number }>('id')).id);
    };
    const webId = await option('Statische site', { image: web, ssh: false });
    const sshId = await option('PHP 8.3 + Apache', { image: ssh, ssh: true, capabilities: [...SSH_IMAGE_CAPABILITIES] });
    const rows = await insertStudents(knex, { webId, sshId });

    const soketi = await startSoketi();
    cleanups.add('soketi', () => soketi.stop());
    const caddy = await startCaddy();
    cleanups.add('Caddy', () => caddy.stop());
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const agent = await startTestAgent({
      certDir: certs.dir,
      env: {
        AGENT_CADDY_ADMIN: caddy.adminUrl,
        AGENT_CADDY_SERVER: caddy.serverName,
        AGENT_DOCKER_NETWORK: agentNetwork,
        AGENT_SITE_DOMAIN: SITE,
        AGENT_PUBLISH_ADDRESS: '127.0.0.1',
        AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
        AGENT_SSH_PORT_RANGE: `${agentSshRange.first}-${agentSshRange.last}`,
        AGENT_SCREENSHOT_PROXY: `127.0.0.1:${caddy.httpPort}`,
        AGENT_DATA_DIR: path.join(workDir, 'agent-data'),
      },
    });
    cleanups.add('the agent', () => agent.stop());
    const app = await startControlPlane({
      databaseUrl: database.url,
      env: {
        LOG_LEVEL: 'warn',
        SITE_DOMAIN: SITE,
        DATA_DIR: path.join(workDir, 'control-plane-data'),
        ...agentLinkEnv(agent.address, certs),
        REALTIME_HOST: soketi.host,
        REALTIME_PORT: String(soketi.port),
        REALTIME_APP_ID: soketi.appId,
        REALTIME_KEY: soketi.key,
        REALTIME_SECRET: soketi.secret,
      },
    });
    cleanups.add('the control plane', () => app.stop());

    const students: Student[] = await Promise.all(
      rows.map(async (row) => {
        const session = new HttpSession(app.url);
        const landing = await session.signIn(row.email);
        if (landing.status !== 200) throw new Error(`sign-in of ${row.email} answered ${landing.status}`);
        return { ...row, session };
      }),
    );
    // A school's dev server has made containers before the lesson: the project network (made at
    // the first create) exists, as the CLI's does, and its browser has started. One create first.
    const [warm] = await knex('projects')
      .insert({ name: `class-${suffix}-warm`, domain: `class-${suffix}-warm.${SITE}`, description: 'Opwarmproject van de klasstart-benchmark.', visible: false, validated: true, docker_image_id: webId })
      .returning<{ id: number }[]>('id');
    const admin = students[0]!;
    await knex('project_user').insert({ project_id: Number(warm?.id), user_id: admin.userId, position: 0 });
    const warmUp = await admin.session.json<Card[]>('POST', '/api/user/dockers', { id: Number(warm?.id) });
    if (warmUp.status !== 200) throw new Error(`the warm-up create answered ${warmUp.status} ${JSON.stringify(warmUp.body)}`);
    await knex('project_user').where({ project_id: Number(warm?.id) }).delete();
    // Its capture (the browser's first) is done before the clock starts, not during a burst.
    await waitFor(async () => (await knex('thumbnails').where({ project_id: Number(warm?.id) }).first()) !== undefined, { description: 'the capture after the warm-up create', timeoutMs: 120_000 });
    const apiNames = students.map((student) => student.name);
    const cliNames = students.map((student) => student.cliName);
    console.log(`Stack up (Docker ${(await docker.version()).Version}); ${STUDENTS} students, ${students.filter((student) => student.ssh).length} with the SSH image ${ssh}, the others ${web}`);
    console.log(`Each burst: the CLI floor first (${STUDENTS} docker processes at once), then ${STUDENTS} API calls at once (each answers when done)`);
    // Printed as each burst ends, so a later failure still leaves the earlier figures.
    console.log(`Wall time of ${STUDENTS} at once (API: control plane → gRPC → agent → engine + Caddy route; CLI: docker processes → engine)`);

    // CPU used during each burst, by whom (the machine has few cores: the API's own work competes with the engine's).
    const enginePid = async (name: string): Promise<number | undefined> => Number((await execFileAsync('pidof', ['-s', name]).catch(() => ({ stdout: '' }))).stdout.trim()) || undefined;
    const cpuPids = { dockerd: await enginePid('dockerd'), containerd: await enginePid('containerd'), agent: agent.pid(), 'control plane': app.pid(), 'bench+CLI': process.pid };

    // 1. create
    const { value: cliCreate, line: cliCreateCpu } = await cpuDuring(cpuPids, () => cliBurst(students, (student, index) => cliRunArgs(student, index, { web, ssh })));
    await expectStates(cliNames, 'running', 'docker run');
    const createBegan = new Date();
    const agentOutputBefore = agent.output().length;
    const { value: apiCreate, line: apiCreateCpu } = await cpuDuring(cpuPids, () =>
      apiBurst(students, (student) => student.session.json<Card[]>('POST', '/api/user/dockers', { id: student.projectId }), 'running'),
    );
    await expectStates(apiNames, 'running', 'API create');
    printBurst('create', apiCreate, cliCreate);
    for (const line of agentCreateSteps(agent.output().slice(agentOutputBefore))) console.log(`          ${line}`);
    console.log(`          CPU during the CLI creates: ${cliCreateCpu}`);
    console.log(`          CPU during the API creates: ${apiCreateCpu}`);
    const routedAfterCreate = await expectRouted(caddy, students);
    const sshPorts = await Promise.all(
      students.filter((student) => student.ssh).map(async (student) => (await docker.getContainer(student.name).inspect()).Config.Labels?.['devplein.ssh-port']),
    );
    if (new Set(sshPorts).size !== sshPorts.length) throw new Error(`SSH ports not distinct: ${sshPorts.join(' ')}`);

    // The captures the creates caused (a create is a start) end before the next burst.
    const capturedSince = async (since: Date): Promise<number> =>
      Number(
        (await knex('thumbnails').whereIn('project_id', students.map((student) => student.projectId)).where('last_attempt_at', '>=', since).count<{ count: string }[]>({ count: '*' }))[0]?.count ?? 0,
      );
    await waitFor(async () => (await capturedSince(createBegan)) >= STUDENTS, { description: 'the captures after the creates', timeoutMs: 180_000 });

    // 2. stop
    const { value: cliStop, line: cliStopCpu } = await cpuDuring(cpuPids, () => cliBurst(students, (student) => ['stop', '-t', String(STOP_TIMEOUT_SECONDS), student.cliName]));
    await expectStates(cliNames, 'exited', 'docker stop');
    const { value: apiStop, line: apiStopCpu } = await cpuDuring(cpuPids, () =>
      apiBurst(students, (student) => student.session.json<Card[]>('PUT', `/api/user/dockers/${student.projectId}?action=stop`), 'exited'),
    );
    printBurst('stop', apiStop, cliStop);
    console.log(`          CPU during the CLI stops: ${cliStopCpu}`);
    console.log(`          CPU during the API stops: ${apiStopCpu}`);

    // Idle floor of the control plane's answers (all containers stopped, nothing captured).
    const readers = students.slice(0, READERS);
    const idleUntil = performance.now() + IDLE_WINDOW_MS;
    const idle = await readDockersUntil(readers, () => performance.now() >= idleUntil);

    // 3. start
    const { value: cliStart, line: cliStartCpu } = await cpuDuring(cpuPids, () => cliBurst(students, (student) => ['start', student.cliName]));
    await expectStates(cliNames, 'running', 'docker start');
    const startedAt = new Date();
    const { value: apiStart, line: apiStartCpu } = await cpuDuring(cpuPids, () =>
      apiBurst(students, (student) => student.session.json<Card[]>('PUT', `/api/user/dockers/${student.projectId}?action=start`), 'running'),
    );
    printBurst('start', apiStart, cliStart);
    console.log(`          CPU during the CLI starts: ${cliStartCpu}`);
    console.log(`          CPU during the API starts: ${apiStartCpu}`);
    const routedAfterStart = await expectRouted(caddy, students);

    // 4. the captures that follow the starts, while students read their dockers page.
    const capturesBegan = performance.now();
    const during = await readDockersUntil(readers, async () => (await capturedSince(startedAt)) >= STUDENTS || performance.now() - capturesBegan > 180_000);
    const capturesTook = performance.now() - capturesBegan;
    const outcomes = await knex('thumbnails').whereIn('project_id', students.map((student) => student.projectId)).where('last_attempt_at', '>=', startedAt).select<{ last_error: string | null }[]>('last_error');

    console.log(`   routed by Caddy on the first try: ${routedAfterCreate}/${STUDENTS} after the creates, ${routedAfterStart}/${STUDENTS} after the starts (all ${STUDENTS} soon after); SSH ports distinct`);
    console.log(`GET /api/user/dockers, ${READERS} students in a loop (the control plane asks the agent for the containers each time)`);
    console.log(`   idle (${(IDLE_WINDOW_MS / 1000).toFixed(0)} s, nothing else running): ${idle.length} answers, p50 ${ms(percentile(idle, 50))}, p99 ${ms(percentile(idle, 99))}`);
    console.log(
      `   during the ${outcomes.length} captures after the starts (${(capturesTook / 1000).toFixed(1)} s, ${outcomes.filter((row) => row.last_error === null).length} stored): ` +
        `${during.length} answers, p50 ${ms(percentile(during, 50))}, p99 ${ms(percentile(during, 99))}  |  p99 during/idle ${(percentile(during, 99) / percentile(idle, 99)).toFixed(2)}x`,
    );
  } finally {
    await cleanups.run();
    const left = await docker.listContainers({ all: true, filters: { name: [suffix] } }).catch(() => []);
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
