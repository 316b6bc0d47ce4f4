/*
 * Proofs under faults (issue 8): a signed-in student has the /dockers page open in Chromium with
 * running containers, clicks Stoppen, and while that stop is in flight at the Docker engine one
 * part goes down and comes back: the host agent (SIGKILL), the Docker engine, PostgreSQL, soketi.
 * Nothing may be lost, the page must say 'onbereikbaar' while the host's state is unknown (and
 * never 'exited' or 'Nog niet gecreëerd' because something was down), show the true state after
 * recovery without a reload, and keep following changes made outside the product.
 *
 * Everything restarted here is this file's own: a private dockerd (never the shared engine other
 * files use), a private PostgreSQL cluster, a private soketi, Caddy and the agent. The
 * containers ignore SIGTERM, so a stop waits out Docker's 10 s timeout: the action is really in
 * flight when the fault hits (the engine's `kill` event says the stop has reached it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { agentLinkEnv, makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../support/services/agent.ts';
import { startCaddy, visitSite, type TestCaddy } from '../support/services/caddy.ts';
import { ensureBusyboxImage, randomSuffix } from '../support/services/docker.ts';
import { shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { waitFor } from '../support/clients/ports.ts';
import { startPostgres, type PostgresServer } from '../support/services/postgres.ts';
import { startPrivateDockerd, type PrivateDockerd } from '../support/services/private-docker.ts';
import { startSoketi, type SoketiServer } from '../support/services/soketi.ts';
import { AGENT_UNREACHABLE_MESSAGE } from '../../control-plane/src/agent/agent-failure.ts';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../../control-plane/src/db/database-errors.ts';
import { STATE_NOT_CREATED, STATE_UNREACHABLE, type UserDocker } from '@devplein/contract/dockers';

const SITE = 'dev.devplein.test';
const STUDENT = 'student@devplein.test';
/** busybox httpd that ignores SIGTERM: every `docker stop` of it takes the full stop timeout. */
const SLOW_STOP_IMAGE = 'devplein-test/slow-stop:1';
const suffix = randomSuffix();
/** The container the student acts on, and one nobody touches (it shows what the page learns by itself). */
const acted = `fault-${suffix}`;
const bystander = `calm-${suffix}`;
const network = `devplein-faults-${suffix}`;
const DESCRIPTION = 'Een project om te bewijzen dat devplein storingen overleeft zonder iets kwijt te raken.';
const shots = shotsDir();

let workDir: string;
let certs: TestCerts;
let dockerd: PrivateDockerd;
let postgres: PostgresServer;
let soketi: SoketiServer;
let caddy: TestCaddy;
let agent: TestAgent;
let e2e: E2eApp;
let api: HttpSession;
const projectIds = new Map<string, number>();

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-e2e-faults-'));
  [dockerd, postgres, soketi, caddy, certs] = await Promise.all([
    startPrivateDockerd(),
    startPostgres(),
    startSoketi(),
    startCaddy(),
    makeTestCerts(path.join(workDir, 'certs')),
  ]);
  const image = await ensureBusyboxImage(
    SLOW_STOP_IMAGE,
    ['/bin/sh', '-c', "trap '' TERM; echo 'devplein-test slow-stop: serving /www on port 80'; exec httpd -f -p 80 -h /www"],
    undefined,
    dockerd.host,
  );
  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_DOCKER_SOCKET: dockerd.socket,
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_DOCKER_NETWORK: network,
      AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
      AGENT_RECONCILE_CRON: '*/2 * * * * *',
    },
  });
  e2e = await startE2eApp({
    databaseServerUrl: postgres.url,
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(agent.address, certs),
      AGENT_DEADLINE_MS: '3000',
      REALTIME_HOST: soketi.host,
      REALTIME_PORT: String(soketi.port),
      REALTIME_APP_ID: soketi.appId,
      REALTIME_KEY: soketi.key,
      REALTIME_SECRET: soketi.secret,
    },
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    },
  });
  const studentId = await e2e.userIdOf(STUDENT);
  const imageId = Number((await e2e.database.knex('docker_images').where({ name: 'Statische site' }).first('id'))!.id);
  for (const name of [acted, bystander]) {
    const [row] = await e2e.database
      .knex('projects')
      .insert({ name, domain: `${name}.${SITE}`, description: DESCRIPTION, docker_image_id: imageId, validated: true, visible: false })
      .returning<{ id: number }[]>('id');
    const id = Number(row!.id);
    projectIds.set(name, id);
    await e2e.database.knex('project_user').insert({ project_id: id, user_id: studentId });
  }
  api = new HttpSession(e2e.url);
  await api.signIn(STUDENT);
  for (const name of [acted, bystander]) {
    const created = await api.api('POST', '/api/user/dockers', { id: projectIds.get(name) });
    if (created.status !== 200) throw new Error(`creating ${name} answered ${created.status}: ${await created.text()}`);
  }
  // The private engine works like the shared one: a port published on 127.0.0.1 on the agent's
  // user network, reached through Caddy.
  for (const name of [acted, bystander]) await expectRouted(name);
}, 240_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  await caddy?.stop();
  await soketi?.stop();
  await postgres?.stop();
  await dockerd?.destroy();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Docker's State of a container on the private engine; undefined when it does not exist. */
async function engineState(name: string): Promise<string | undefined> {
  const [info] = await dockerd.docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
  return info?.State;
}

async function routedDomains(): Promise<string[]> {
  const response = await fetch(`${caddy.adminUrl}/config/apps/http/servers/${caddy.serverName}/routes`);
  const routes = (await response.json()) as Array<{ match?: Array<{ host?: string[] }> }>;
  return routes.flatMap((route) => route.match?.flatMap((match) => match.host ?? []) ?? []);
}

async function expectRouted(name: string): Promise<void> {
  const domain = `${name}.${SITE}`;
  await waitFor(async () => (await visitSite(caddy.httpPort, domain)).body.includes('devplein test page'), {
    description: `Caddy routing ${domain} to the container`,
    timeoutMs: 30_000,
    intervalMs: 250,
  });
}

/**
 * The route matches the container once the agent has reconciled: a running (or paused)
 * container has its route to a working upstream, a stopped one has none (Caddy's 404).
 */
async function expectRouteMatchesContainer(name: string): Promise<void> {
  const domain = `${name}.${SITE}`;
  await waitFor(
    async () => {
      const state = await engineState(name);
      const routed = (await routedDomains()).includes(domain);
      if (state === 'running') return routed && (await visitSite(caddy.httpPort, domain)).body.includes('devplein test page');
      if (state === 'paused') return routed;
      return state !== undefined && !routed && (await visitSite(caddy.httpPort, domain)).status === 404;
    },
    { description: `the route of ${domain} to match its container`, timeoutMs: 30_000, intervalMs: 250 },
  );
}

/**
 * Watches the engine for `action` on the container; `happened` resolves true when it comes, or
 * false when the engine's stream ends first (the engine itself going down). The stream is open
 * when this returns (wrapped in an object: an async function cannot hand back a promise without
 * awaiting it).
 */
async function engineEvent(name: string, action: string): Promise<{ happened: Promise<boolean> }> {
  const stream = (await dockerd.docker.getEvents({ filters: { type: ['container'], container: [name], event: [action] } })) as Readable;
  const happened = new Promise<boolean>((resolve) => {
    stream.once('data', () => {
      stream.destroy();
      resolve(true);
    });
    stream.once('error', () => resolve(false));
    stream.once('end', () => resolve(false));
  });
  return { happened };
}

interface CardState {
  name: string;
  state: string;
  at: number;
}

interface OpenPage {
  page: Page;
  /** Every state each card showed, in order, with the test process's clock. */
  states: CardState[];
  /** Every DockerEventSent that reached the page over the realtime connection. */
  events: CardState[];
  /** Console errors about the page's Content Security Policy. */
  cspErrors: string[];
  /** Whether the page's realtime connection is up with the container's channel subscribed. */
  live(name: string): boolean;
  /** How many times the document was loaded (1 = never reloaded). */
  loads(): number;
  /** Requests the browser gave up on, with Chromium's reason (what made a reload, if one came). */
  failedRequests: string[];
  close(): Promise<void>;
}

/** A signed-in student's /dockers page that reports every card state change (and every page load) to the test. */
async function openDockersPage(): Promise<OpenPage> {
  const { context, page } = await e2e.signInAs(STUDENT);
  const states: CardState[] = [];
  let loads = 0;
  await context.exposeBinding('__cardState', (_source, name: string, state: string) => {
    states.push({ name, state, at: Date.now() });
  });
  await context.exposeBinding('__pageLoaded', () => {
    loads += 1;
  });
  await context.addInitScript(() => {
    const report = window as unknown as { __cardState(name: string, state: string): void; __pageLoaded(): void };
    if (location.pathname !== '/dockers') return;
    report.__pageLoaded();
    const last = new Map<string, string>();
    const scan = () => {
      for (const card of document.querySelectorAll('[data-testid="docker-card"]')) {
        const name = card.getAttribute('data-docker') ?? '';
        const state = card.getAttribute('data-state') ?? '';
        if (last.get(name) === state) continue;
        last.set(name, state);
        report.__cardState(name, state);
      }
    };
    new MutationObserver(scan).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
  });
  // The live updates themselves: DockerEventSent messages as they arrive over the page's websocket.
  const events: CardState[] = [];
  // When each channel was last subscribed, and when the last socket closed: live when subscribed since.
  const subscribed = new Map<string, number>();
  let closedAt = 0;
  page.on('websocket', (socket) => {
    socket.on('close', () => (closedAt = Date.now()));
    socket.on('framereceived', ({ payload }) => {
      try {
        const frame = JSON.parse(String(payload)) as { event?: string; channel?: string; data?: string };
        const name = frame.channel?.replace('private-container.', '') ?? '';
        if (frame.event === 'pusher_internal:subscription_succeeded') subscribed.set(name, Date.now());
        if (frame.event !== 'DockerEventSent' || !frame.data) return;
        const { message } = JSON.parse(frame.data) as { message?: string };
        events.push({ name, state: message ?? '', at: Date.now() });
      } catch {
        // not a Pusher JSON frame
      }
    });
  });
  // An outage must not make the page try what its Content Security Policy forbids (e.g. wss:// to a ws:// server).
  const cspErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
  });
  const failedRequests: string[] = [];
  page.on('requestfailed', (request) => failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? '?'}`));
  await page.goto(`${e2e.url}/dockers`);
  return {
    page,
    cspErrors,
    failedRequests,
    states,
    events,
    live: (name) => (subscribed.get(name) ?? 0) > closedAt,
    loads: () => loads,
    close: () => context.close(),
  };
}

function card(page: Page, name: string) {
  return page.locator(`[data-testid="docker-card"][data-docker="${name}"]`);
}

/** Waits for the card to show `state`; when it does not, says what it shows, what the engine says and whether the page asked meanwhile. */
async function expectCardState(page: Page, name: string, state: string, timeout = 30_000): Promise<void> {
  const listAnswers: number[] = [];
  const onResponse = (response: Response) => {
    if (response.request().method() === 'GET' && new URL(response.url()).pathname === '/api/user/dockers') listAnswers.push(response.status());
  };
  page.on('response', onResponse);
  try {
    await page.locator(`[data-testid="docker-card"][data-docker="${name}"][data-state="${state}"]`).waitFor({ timeout });
  } catch (error) {
    const shown = await card(page, name)
      .getAttribute('data-state', { timeout: 1_000 })
      .catch(() => 'no card');
    const truth = (await engineState(name)) ?? 'no container';
    throw new Error(
      `the card of ${name} did not show '${state}' within ${timeout} ms: it shows '${shown}', the engine says '${truth}'; the page asked for the list ${listAnswers.length} times meanwhile (${listAnswers.join(', ')})`,
      { cause: error },
    );
  } finally {
    page.off('response', onResponse);
  }
}

/** Waits until the card shows what the engine says (after a recovery); returns that state. */
async function expectCardShowsEngineState(page: Page, name: string): Promise<string> {
  let shown = '';
  await waitFor(
    async () => {
      const truth = await engineState(name);
      shown = (await card(page, name).getAttribute('data-state')) ?? '';
      if (truth === undefined || shown !== truth) throw new Error(`the card shows '${shown}', the engine says '${truth ?? 'no container'}'`);
      return true;
    },
    { description: `the card of ${name} to show the engine's state`, timeoutMs: 45_000, intervalMs: 100 },
  );
  return shown;
}

/** Brings both containers to `running` (outside the product) and waits for the page to say so. */
async function bothRunning(page: Page): Promise<void> {
  for (const name of [acted, bystander]) {
    const state = await engineState(name);
    if (state === 'paused') await dockerd.cli(['unpause', name]);
    else if (state !== 'running') await dockerd.cli(['start', name]);
    await expectCardState(page, name, 'running');
  }
}

interface Fault {
  /** Whether the host's state is unknown while this part is down (the page must say 'onbereikbaar'). */
  hidesHostState: boolean;
  begin(): Promise<void>;
  end(): Promise<void>;
  /** Extra checks while the part is down. */
  whileDown?(open: OpenPage): Promise<void>;
}

interface FaultRun {
  open: OpenPage;
  /** Status of the in-flight PUT …?action=stop. */
  actionStatus: number;
  /** When the test saw that answer. */
  answeredAt: number;
  /** When the fault began (the stop had reached the engine). */
  faultAt: number;
  /** When the part was entirely down (its process gone); until then it may still answer some calls. */
  downAt: number;
  /** When its repair began. */
  endAt: number;
  repairedAt: number;
  /** How often the page had been loaded when the fault began (what the fault must not change). */
  loadsBeforeFault: number;
}

/**
 * The common part of every scenario: page open with both containers running, Stoppen clicked on
 * one, the fault begins once the engine has the stop, checks while down, the fault ends, and the
 * page shows the true state without a reload. The caller checks the fault's own consequences.
 */
async function runFault(label: string, fault: Fault): Promise<FaultRun> {
  const open = await openDockersPage();
  const { page } = open;
  await bothRunning(page);
  await expectRouteMatchesContainer(acted);

  const stopReached = await engineEvent(acted, 'kill');
  const stopEnded = await engineEvent(acted, 'die');
  const answer = page.waitForResponse(
    (response: Response) => response.url().includes(`/api/user/dockers/${projectIds.get(acted)}?action=stop`),
    { timeout: 60_000 },
  );
  // A page that loaded twice before the fault is not what this test is about (Chromium drops
  // requests with ERR_NETWORK_CHANGED when parallel tests add or remove interfaces, and the app
  // loads itself anew on a failed page chunk); it says why, and the fault must add no load.
  const loadsBeforeFault = open.loads();
  if (loadsBeforeFault !== 1) console.log(`[faults] ${label}: the page was loaded ${loadsBeforeFault} times before the fault; failed requests: ${open.failedRequests.join('; ') || 'none'}`);
  await card(page, acted).getByRole('button', { name: 'Stoppen' }).click();
  expect(await stopReached.happened).toBe(true);
  const faultAt = Date.now();
  await fault.begin();
  const downAt = Date.now();
  console.log(`[faults] ${label}: down ${Date.now() - faultAt} ms after the stop reached the engine`);

  if (fault.hidesHostState) {
    // The page learns it by itself (the bystander has no action of its own), and the API says it too.
    for (const name of [acted, bystander]) await expectCardState(page, name, STATE_UNREACHABLE);
    console.log(`[faults] ${label}: 'onbereikbaar' shown ${Date.now() - faultAt} ms after the fault began`);
    const listed = await api.json<UserDocker[]>('GET', '/api/user/dockers');
    expect(listed.status).toBe(200);
    for (const name of [acted, bystander]) expect(listed.body.find((docker) => docker.project.name === name)?.State).toBe(STATE_UNREACHABLE);
  }
  const actionStatus = (await answer).status();
  const answeredAt = Date.now();
  console.log(`[faults] ${label}: the in-flight stop answered ${actionStatus}`);
  await fault.whileDown?.(open);
  await page.screenshot({ path: path.join(shots, `faults-${label}-down.png`), fullPage: true });

  const endAt = Date.now();
  await fault.end();
  const repairedAt = Date.now();
  for (const name of [acted, bystander]) {
    const state = await expectCardShowsEngineState(page, name);
    console.log(`[faults] ${label}: ${name === acted ? 'acted-on' : 'bystander'} card shows the true state '${state}' ${Date.now() - repairedAt} ms after the repair`);
  }
  // The stop that was in flight ends in the engine either way (Docker carries it out without its
  // caller, or its shutdown ends the container): wait for that, and the card follows.
  if (!(await stopEnded.happened)) {
    await waitFor(async () => (await engineState(acted)) !== 'running', { description: `the stop of ${acted} to end`, timeoutMs: 30_000, intervalMs: 100 });
  }
  await expectCardShowsEngineState(page, acted);
  await page.screenshot({ path: path.join(shots, `faults-${label}-recovered.png`), fullPage: true });
  return { open, actionStatus, answeredAt, faultAt, downAt, endAt, repairedAt, loadsBeforeFault };
}

/** Nothing lost: the project rows are there and their containers exist on the engine. */
async function expectNothingLost(): Promise<void> {
  for (const name of [acted, bystander]) {
    expect(await e2e.database.knex('projects').where({ name }).first('id')).toBeDefined();
    expect(await engineState(name)).toBeDefined();
  }
}

/**
 * Live updates resume: a change made outside the product reaches the open page as a realtime
 * event (not only through a list the page asked for).
 */
async function expectLiveUpdates(open: OpenPage): Promise<void> {
  const { page } = open;
  await waitFor(() => open.live(bystander), { description: 'the page to be subscribed to live updates', timeoutMs: 30_000, intervalMs: 50 });
  const changes: Array<[string[], string]> =
    (await engineState(bystander)) === 'running'
      ? [
          [['pause', bystander], 'paused'],
          [['unpause', bystander], 'running'],
        ]
      : [[['start', bystander], 'running']];
  for (const [command, state] of changes) {
    const since = Date.now();
    await dockerd.cli(command);
    await waitFor(() => open.events.some((event) => event.at >= since && event.name === bystander && event.state === state), {
      description: `the '${state}' event of ${bystander} to reach the page`,
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    await expectCardState(page, bystander, state);
  }
}

/** The acted-on card: completed (200, the card follows the engine) or failed with a clear Dutch message. */
async function expectActionOutcome(page: Page, status: number, failureMessage: string): Promise<void> {
  expect([200, 503]).toContain(status);
  if (status === 503) await card(page, acted).getByRole('alert').getByText(failureMessage).waitFor();
}

/**
 * The states our cards showed from the fault on: never 'Nog niet gecreëerd'. Where the fault
 * hides the host, from the moment the part was entirely down until its repair began, a card
 * shows 'onbereikbaar' and nothing else once it has said so; before it has, only what a live
 * event just brought (a stopping engine still reports real changes, such as the in-flight stop
 * completing, and their relay may land a few milliseconds after the engine's process is gone).
 * Where the fault does not hide the host, never 'onbereikbaar'.
 */
function checkStates(run: FaultRun, hidesHostState: boolean): void {
  // The student's seeded projects without a container rightly say 'Nog niet gecreëerd': only ours count.
  const during = run.open.states.filter((entry) => entry.at >= run.faultAt && (entry.name === acted || entry.name === bystander));
  expect(during.filter((entry) => entry.state === STATE_NOT_CREATED)).toEqual([]);
  for (const name of [acted, bystander]) {
    const mine = during.filter((entry) => entry.name === name);
    if (!hidesHostState) {
      expect(mine.filter((entry) => entry.state === STATE_UNREACHABLE), `${name} said 'onbereikbaar' while the host was known: ${JSON.stringify(mine)}`).toEqual([]);
      continue;
    }
    const events = run.open.events.filter((event) => event.name === name && event.at >= run.faultAt);
    const window = mine.filter((entry) => entry.at >= run.downAt && entry.at < run.endAt);
    const toldUnknown = window.findIndex((entry) => entry.state === STATE_UNREACHABLE);
    const guessed = window.filter((entry, index) => {
      if (entry.state === STATE_UNREACHABLE) return false;
      if (toldUnknown !== -1 && index > toldUnknown) return true;
      // Before the page was told: acceptable only as the state the latest live event brought.
      const latestEvent = events.filter((event) => event.at <= entry.at).at(-1);
      return latestEvent?.state !== entry.state;
    });
    // Compact and relative to the moment the part was down: the CI summary keeps only the first line's start.
    const since = (at: number) => `${at - run.downAt >= 0 ? '+' : ''}${at - run.downAt}`;
    const shown = mine.map((entry) => `${entry.state}@${since(entry.at)}`).join(' ');
    expect(
      guessed,
      `${name} (${name === acted ? 'acted on' : 'bystander'}) showed a state between down (0) and repair (${since(run.endAt)}) ms; shown: ${shown}; events: ${events.map((event) => `${event.state}@${since(event.at)}`).join(' ') || 'none'}; stop answered ${run.actionStatus}@${since(run.answeredAt)}`,
    ).toEqual([]);
  }
}

/** While the agent or its engine is away, an action is refused with the Dutch message (and nothing is deleted). */
async function expectActionsRefused(): Promise<void> {
  const refused = await api.json<{ message: string }>('PUT', `/api/user/dockers/${projectIds.get(bystander)}?action=stop`);
  expect(refused).toEqual({ status: 503, body: { message: AGENT_UNREACHABLE_MESSAGE } });
}

/**
 * What every scenario ends with: the states shown were honest, nothing was lost, the routes
 * match the containers, live updates come again, and the page was never reloaded (nor broke its CSP).
 */
async function expectRecovered(run: FaultRun, hidesHostState: boolean): Promise<void> {
  checkStates(run, hidesHostState);
  await expectNothingLost();
  for (const name of [acted, bystander]) await expectRouteMatchesContainer(name);
  await expectLiveUpdates(run.open);
  expect(run.open.loads(), `the page loaded anew during the fault; failed requests: ${run.open.failedRequests.join('; ') || 'none'}`).toBe(run.loadsBeforeFault);
  expect(run.open.cspErrors).toEqual([]);
  await run.open.close();
}

describe('proofs under faults: the dockers page with an action in flight', { timeout: 240_000 }, () => {
  it('the host agent is SIGKILLed and restarted', async () => {
    const run = await runFault('agent', {
      hidesHostState: true,
      begin: () => agent.kill(),
      end: () => agent.restart(),
      whileDown: expectActionsRefused,
    });
    await expectActionOutcome(run.open.page, run.actionStatus, AGENT_UNREACHABLE_MESSAGE);
    await expectRecovered(run, true);
  });

  it('the Docker engine is restarted', async () => {
    const run = await runFault('docker', {
      hidesHostState: true,
      begin: () => dockerd.stopDaemon(),
      end: () => dockerd.startDaemon(),
      whileDown: expectActionsRefused,
    });
    await expectActionOutcome(run.open.page, run.actionStatus, AGENT_UNREACHABLE_MESSAGE);
    await expectRecovered(run, true);
  });

  it('PostgreSQL is restarted', async () => {
    const run = await runFault('postgres', {
      hidesHostState: false,
      begin: () => postgres.stopServer(),
      end: () => postgres.startServer(),
      whileDown: async ({ page }) => {
        // The API answers 503 with a Dutch message, never a 500.
        const listed = await api.json<{ message: string }>('GET', '/api/user/dockers');
        expect(listed).toEqual({ status: 503, body: { message: DATABASE_UNAVAILABLE_MESSAGE } });
        // So does an action from the page; the card keeps the state it knows.
        await expectCardState(page, acted, 'exited');
        await card(page, acted).getByRole('button', { name: 'Starten' }).click();
        await card(page, acted).getByRole('alert').getByText(DATABASE_UNAVAILABLE_MESSAGE).waitFor();
        expect(await card(page, acted).getAttribute('data-state')).toBe('exited');
      },
    });
    // The stop needed the database only before it reached the agent.
    expect(run.actionStatus).toBe(200);
    // Recovered by itself: the same session works again without signing in anew, and so does the page.
    await waitFor(async () => (await api.api('GET', '/api/user/dockers')).status === 200, {
      description: 'the API to answer again after PostgreSQL is back',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    console.log(`[faults] postgres: the API answers again ${Date.now() - run.repairedAt} ms after the repair`);
    await card(run.open.page, acted).getByRole('button', { name: 'Starten' }).click();
    await expectCardState(run.open.page, acted, 'running');
    await expectRecovered(run, false);
  });

  it('soketi is restarted', async () => {
    const run = await runFault('soketi', {
      hidesHostState: false,
      begin: () => soketi.stop(),
      end: async () => {
        soketi = await startSoketi({ port: soketi.port, appId: soketi.appId, key: soketi.key, secret: soketi.secret });
      },
      whileDown: async (open) => {
        // The stop's own answer still reaches the card…
        await expectCardState(open.page, acted, 'exited');
        // …and a change made meanwhile, whose event is lost with soketi away, too: the page asks by itself while its live updates are down.
        const since = Date.now();
        await dockerd.cli(['start', acted]);
        await expectCardState(open.page, acted, 'running');
        expect(open.events.filter((event) => event.at >= since)).toEqual([]);
        console.log(`[faults] soketi: the missed start shows ${Date.now() - since} ms after it happened, soketi still down`);
      },
    });
    expect(run.actionStatus).toBe(200);
    expect(await card(run.open.page, acted).getAttribute('data-state')).toBe('running');
    await waitFor(() => run.open.live(bystander), { description: 'the page to reconnect to soketi', timeoutMs: 30_000, intervalMs: 50 });
    console.log(`[faults] soketi: live updates reconnected ${Date.now() - run.repairedAt} ms after the repair`);
    await expectRecovered(run, false);
  });
});
