/**
 * Site thumbnails in the control plane, against the fake agent's ScreenshotService: storing and
 * serving a capture (ETag, 304), failures recorded with a reason (and the tile URL 404s), one
 * capture per site in flight, 'ververs screenshot' routes × roles, the nightly job, and a capture
 * scheduled after a container starts.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureOutcome } from '@devplein/proto/screenshot';
import { createAgentClient, type AgentClient } from '../../../control-plane/src/agent/agent-client.ts';
import { ThumbnailCapturer } from '../../../control-plane/src/services/thumbnail-capturer.ts';
import { singleAgentFleet } from '../../../control-plane/src/agent/agent-fleet.ts';
import { captureVisibleSites } from '../../../control-plane/src/jobs/thumbnail-scheduler.ts';
import type { AdminDocker, ScreenshotState } from '@devplein/contract/dockers';
import { fakePng } from '../../support/fakes/fake-agent.ts';
import { ADMIN, DEVELOPER, DOCENT, NO_GROUP, NOT_ACTIVATED, SITE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { createControlPlaneMetrics } from '../../../control-plane/src/metrics/metrics.ts';
import { revalidate, startSiteWall, WALL_PNG, type SiteWall } from '../../support/fixtures/site-wall.ts';

/** The after-start delay of this file's control plane. */
const AFTER_START_S = 1;

let stack: HostingStack;
let admin: HttpSession;

beforeAll(async () => {
  stack = await startHostingStack({ env: { THUMBNAIL_AFTER_START_S: String(AFTER_START_S), THUMBNAIL_CRON: 'off', THUMBNAIL_CONCURRENCY: '2' } });
  admin = await stack.as(ADMIN);
});

afterAll(async () => {
  await stack?.stop();
});

const domainOf = (name: string): string => `${name}.${SITE}`;
const thumbnailUrl = (name: string): string => `/misc/browserimg2/small/${name}_s.png`;

/** A visible project of Zoë; with `running`, its container is created (which starts it). */
async function site(name: string, options: { running?: boolean; visible?: boolean } = {}): Promise<{ id: number; name: string }> {
  const project = await stack.project({ name, members: [NO_GROUP] });
  await stack.database.knex('projects').where('id', project.id).update({ visible: options.visible ?? true });
  if (options.running) {
    expect((await (await stack.as(NO_GROUP)).json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
  }
  return project;
}

async function thumbnailRow(projectId: number): Promise<{ png: Buffer | null; etag: string | null; captured_at: Date | null; last_error: string | null; last_attempt_at: Date | null } | undefined> {
  return stack.database.knex('thumbnails').where('project_id', projectId).first('png', 'etag', 'captured_at', 'last_error', 'last_attempt_at');
}

async function state(projectId: number): Promise<ScreenshotState> {
  const { status, body } = await admin.json<ScreenshotState>('GET', `/api/admin/dockers/${projectId}/screenshot`);
  expect(status).toBe(200);
  return body;
}

/** Waits until no capture of the project is queued or running, and returns its state. */
async function settled(projectId: number): Promise<ScreenshotState> {
  let last: ScreenshotState | undefined;
  await waitFor(async () => !(last = await state(projectId)).inFlight, { description: `capture of project ${projectId} to finish`, timeoutMs: 20_000, intervalMs: 100 });
  return last as ScreenshotState;
}

/** Waits for the capture the container start scheduled (so later counts start from a quiet site). */
async function afterStartCapture(project: { id: number; name: string }): Promise<void> {
  await waitFor(() => stack.agent.capturesOf(domainOf(project.name)).length >= 1, {
    description: `the after-start capture of ${project.name}`,
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  await settled(project.id);
}

describe('a successful capture', () => {
  it('is stored with its time and served with ETag and Last-Modified; If-None-Match gets 304', async () => {
    const project = await site('foto-goed', { running: true });
    await afterStartCapture(project);

    const anonymous = await stack.anonymous();
    const before = Date.now();
    const posted = await admin.json<ScreenshotState>('POST', `/api/admin/dockers/${project.id}/screenshot`);
    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({ projectId: project.id });
    const done = await settled(project.id);
    expect(done.lastError).toBeNull();
    expect(new Date(done.capturedAt ?? 0).getTime()).toBeGreaterThanOrEqual(before - 1000);

    const row = await thumbnailRow(project.id);
    expect(row?.png?.equals(fakePng(domainOf(project.name)))).toBe(true);
    expect(row?.last_error).toBeNull();

    const first = await anonymous.raw(thumbnailUrl(project.name));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('last-modified')).toBeTruthy();
    expect(Buffer.from(await first.arrayBuffer()).equals(fakePng(domainOf(project.name)))).toBe(true);

    // undici adds `Cache-Control: no-cache` next to a hand-set If-None-Match unless one is given.
    const second = await anonymous.raw(thumbnailUrl(project.name), { headers: { 'If-None-Match': etag ?? '', 'Cache-Control': 'max-age=0' } });
    expect(second.status).toBe(304);
    // The capture asked the agent for this project's own domain, with the page time limit.
    expect(stack.agent.capturesOf(domainOf(project.name)).at(-1)).toMatchObject({ domain: domainOf(project.name), timeoutMs: 15_000 });
  });
});

describe('failed captures', () => {
  it('TIMEOUT, UNREACHABLE and HTTP_ERROR record a Dutch reason (the agent’s only when Dutch or known), keep the old png, and the URL 404s', async () => {
    const cases = [
      { name: 'foto-traag', outcome: CaptureOutcome.CAPTURE_OUTCOME_TIMEOUT, reason: 'page did not load within 15000 ms', text: 'Time-out: de site laadde niet op tijd' },
      { name: 'foto-weg', outcome: CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE, reason: 'net::ERR_CONNECTION_REFUSED', text: 'Onbereikbaar: de site gaf geen antwoord (de site weigerde de verbinding)' },
      { name: 'foto-stuk', outcome: CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR, reason: 'the site answered 500', text: 'HTTP-fout 500', httpStatus: 500 },
      { name: 'foto-elders', outcome: 6, reason: 'redirected to example.org', text: 'Doorgestuurd naar een ander domein' },
      { name: 'foto-nl', outcome: CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE, reason: 'de reverse proxy kent dit domein niet (geen draaiende container)', text: 'Onbereikbaar: de site gaf geen antwoord (de reverse proxy kent dit domein niet (geen draaiende container))' },
    ];
    const anonymous = await stack.anonymous();
    for (const entry of cases) {
      const project = await site(entry.name, { running: true });
      await afterStartCapture(project);
      // The after-start capture succeeded: there is a good picture to keep.
      expect((await anonymous.raw(thumbnailUrl(project.name))).status).toBe(200);
      const good = await thumbnailRow(project.id);

      stack.agent.screenshots.set(domainOf(entry.name), { outcome: entry.outcome, errorReason: entry.reason, httpStatus: entry.httpStatus ?? 0 });
      expect((await admin.json('POST', `/api/admin/dockers/${project.id}/screenshot`)).status).toBe(202);
      const done = await settled(project.id);
      expect(done.lastError, entry.name).toBe(entry.text);
      expect(done.capturedAt, entry.name).toBe(new Date(good?.captured_at ?? 0).toISOString());

      const row = await thumbnailRow(project.id);
      expect(row?.png?.equals(good?.png ?? Buffer.alloc(0)), `${entry.name} keeps its old png`).toBe(true);
      expect(row?.last_attempt_at && row.last_attempt_at > (good?.last_attempt_at ?? new Date(0))).toBe(true);
      const response = await anonymous.raw(thumbnailUrl(project.name));
      expect(response.status, `${entry.name} tile URL`).toBe(404);
    }
  });

  it('a domain the agent refuses is recorded; an agent without a browser leaves the last good thumbnail alone', async () => {
    const refused = await site('foto-geweigerd', { running: true });
    await afterStartCapture(refused);
    stack.agent.screenshots.set(domainOf(refused.name), { rpcError: { code: grpc.status.INVALID_ARGUMENT, details: 'domain is not under the dev domain' } });
    await admin.json('POST', `/api/admin/dockers/${refused.id}/screenshot`);
    expect((await settled(refused.id)).lastError).toBe('De dockerserver weigerde de screenshot (het domein valt niet onder het domein van de dockerserver)');

    const noBrowser = await site('foto-zonder-browser', { running: true });
    await afterStartCapture(noBrowser);
    stack.agent.screenshots.set(domainOf(noBrowser.name), { rpcError: { code: grpc.status.UNAVAILABLE, details: 'chromium is not installed' } });
    const asked = await admin.json<ScreenshotState>('POST', `/api/admin/dockers/${noBrowser.id}/screenshot`);
    // The answer is the state from just before, with the capture in flight.
    expect(asked.body).toMatchObject({ inFlight: true, lastError: null });
    const after = await settled(noBrowser.id);
    expect(after.lastError).toBeNull();
    // Nothing was recorded: the same last attempt as before (that is how the page tells).
    expect(after.lastAttemptAt).toBe(asked.body.lastAttemptAt);
    expect(stack.agent.capturesOf(domainOf(noBrowser.name)).length).toBe(2);
    expect((await (await stack.anonymous()).raw(thumbnailUrl(noBrowser.name))).status).toBe(200);
  });
});

describe('one capture per site in flight', () => {
  it('never runs two captures of one site at once; requests made while one runs share one capture after it', async () => {
    const project = await site('foto-dubbel', { running: true });
    await afterStartCapture(project);
    // The first capture runs until the test lets it end (a fixed delay raced the requests below on a loaded machine).
    let release!: () => void;
    stack.agent.screenshots.set(domainOf(project.name), { heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const before = stack.agent.capturesOf(domainOf(project.name)).length;

    const first = await admin.json<ScreenshotState>('POST', `/api/admin/dockers/${project.id}/screenshot`);
    expect(first.status).toBe(202);
    await waitFor(() => stack.agent.capturesOf(domainOf(project.name)).length === before + 1, { description: 'the first capture to ask the agent', timeoutMs: 10_000, intervalMs: 20 });
    // Three more while it runs (two at once): they share the one capture that follows it.
    const [second, third] = await Promise.all([
      admin.json<ScreenshotState>('POST', `/api/admin/dockers/${project.id}/screenshot`),
      (await stack.as(DOCENT)).json<ScreenshotState>('POST', `/api/admin/dockers/${project.id}/screenshot`),
    ]);
    expect([second.status, third.status]).toEqual([202, 202]);
    const fourth = await admin.json<ScreenshotState>('POST', `/api/admin/dockers/${project.id}/screenshot`);
    expect([second.body.inFlight, third.body.inFlight, fourth.body.inFlight]).toEqual([true, true, true]);
    release();
    await settled(project.id);
    expect(stack.agent.capturesOf(domainOf(project.name)).length - before).toBe(2);
    expect(stack.agent.peakCapturesPerDomain.get(domainOf(project.name))).toBe(1);
  });

  it('answers a request made while a capture runs with a capture of its own, not the running one’s old outcome', async () => {
    const project = await site('foto-nieuw', { running: true });
    await afterStartCapture(project);
    // A capture that will succeed is running (held until the site has gone down)…
    let release!: () => void;
    stack.agent.screenshots.set(domainOf(project.name), { heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const before = stack.agent.capturesOf(domainOf(project.name)).length;
    expect((await admin.json('POST', `/api/admin/dockers/${project.id}/screenshot`)).status).toBe(202);
    await waitFor(() => stack.agent.capturesOf(domainOf(project.name)).length === before + 1, { description: 'the first capture to ask the agent', timeoutMs: 10_000, intervalMs: 20 });
    // …when the site goes down and a teacher asks again.
    stack.agent.screenshots.set(domainOf(project.name), { outcome: CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE, errorReason: 'net::ERR_CONNECTION_REFUSED' });
    expect((await admin.json('POST', `/api/admin/dockers/${project.id}/screenshot`)).status).toBe(202);
    release();
    const done = await settled(project.id);
    expect(done.lastError).toBe('Onbereikbaar: de site gaf geen antwoord (de site weigerde de verbinding)');
    expect(stack.agent.capturesOf(domainOf(project.name)).length - before).toBe(2);
  });
});

describe('POST /api/admin/dockers/{id}/screenshot', () => {
  it('routes × roles: anonymous 401, not activated 403, student 403, developer 403, admins 202; no CSRF token 419', async () => {
    const project = await site('foto-rollen', { running: true });
    await afterStartCapture(project);
    const path = `/api/admin/dockers/${project.id}/screenshot`;
    const send = async (email: string | null): Promise<number> => (await (email ? await stack.as(email) : await stack.anonymous()).api('POST', path)).status;
    expect(await send(null), 'anonymous').toBe(401);
    expect(await send(NOT_ACTIVATED), 'not activated').toBe(403);
    expect(await send(STUDENT), 'student').toBe(403);
    expect(await send(DEVELOPER), 'developer').toBe(403);
    expect(await send(DOCENT), 'admin').toBe(202);
    expect(await send(ADMIN), 'admin + developer').toBe(202);
    expect((await admin.api('POST', path, undefined, { 'X-CSRF-TOKEN': '' })).status, 'no CSRF token').toBe(419);
    // The state route is for admins as well.
    expect((await (await stack.anonymous()).api('GET', path)).status).toBe(401);
    expect((await (await stack.as(STUDENT)).api('GET', path)).status).toBe(403);
    expect((await admin.api('GET', path)).status).toBe(200);
    await settled(project.id);
  });

  it('404 for an unknown project, 409 with a Dutch message without a running container, 422 for a bad id', async () => {
    expect((await admin.json('POST', '/api/admin/dockers/999999/screenshot')).status).toBe(404);
    const stopped = await site('foto-uit');
    const answer = await admin.json<{ message: string }>('POST', `/api/admin/dockers/${stopped.id}/screenshot`);
    expect(answer.status).toBe(409);
    expect(answer.body.message).toMatch(/geen draaiende container/);
    expect(stack.agent.capturesOf(domainOf(stopped.name))).toEqual([]);
    expect((await admin.json('POST', '/api/admin/dockers/abc/screenshot')).status).toBe(422);
  });

  it('the admin dockers list carries each project row’s screenshot state', async () => {
    const project = await site('foto-lijst', { running: true });
    await afterStartCapture(project);
    stack.agent.addUnmanaged('foto-los');
    const { body } = await admin.json<AdminDocker[]>('GET', '/api/admin/dockers');
    const row = body.find((docker) => docker.Names[0] === '/foto-lijst');
    expect(row?.screenshot).toMatchObject({ projectId: project.id, inFlight: false, lastError: null, capturedAt: expect.any(String) });
    expect(body.find((docker) => docker.Names[0] === '/foto-los')?.screenshot).toBeNull();
  });
});

describe('the nightly job', () => {
  let client: AgentClient;

  beforeAll(async () => {
    const certs = stack.agent.certs;
    const [caPem, certPem, keyPem] = await Promise.all([readFile(certs.ca), readFile(certs.clientCert), readFile(certs.clientKey)]);
    client = createAgentClient({ address: stack.agent.address, caPem, certPem, keyPem, logger: pino({ level: 'silent' }) });
  });

  afterAll(() => client?.close());

  it('captures only approved, visible sites (the wall’s), records each outcome, and one failure does not stop the others', async () => {
    const shown = await site('nacht-een');
    const failing = await site('nacht-kapot');
    const slow = await site('nacht-traag');
    const hidden = await site('nacht-verborgen', { visible: false });
    stack.agent.screenshots.set(domainOf(failing.name), { outcome: CaptureOutcome.CAPTURE_OUTCOME_BROWSER_ERROR, errorReason: 'page crashed' });
    stack.agent.screenshots.set(domainOf(slow.name), { delayMs: 300 });
    stack.agent.screenshotDelayMs = 100;
    stack.agent.peakCapturesInFlight = 0;
    const visibleIds = (await stack.database.knex('projects').where({ visible: true, validated: true }).orderBy('id').pluck('id')).map(Number);

    const capturer = new ThumbnailCapturer({
      knex: stack.database.knex,
      agents: singleAgentFleet(client, { name: 'dev1', siteDomain: SITE, studentDbHost: '10.8.0.1', studentDbPort: 3306, dbAdminUrl: '/phpmyadmin/' }),
      logger: pino({ level: 'silent' }),
      settings: { concurrency: 2, timeoutMs: 5_000 },
      metrics: createControlPlaneMetrics(),
    });
    try {
      const results = await captureVisibleSites({ knex: stack.database.knex, capturer, logger: pino({ level: 'silent' }) });
      expect(results.map((result) => result.projectId)).toEqual(visibleIds);
      expect(results.find((result) => result.projectId === hidden.id)).toBeUndefined();
      expect(stack.agent.capturesOf(domainOf(hidden.name))).toEqual([]);
      expect(results.find((result) => result.projectId === failing.id)).toMatchObject({ ok: false, outcome: 'browser_error', error: 'Browserfout (het tabblad van de browser is gecrasht)' });
      expect(results.find((result) => result.projectId === shown.id)).toMatchObject({ ok: true, outcome: 'captured' });
      expect(results.find((result) => result.projectId === slow.id)).toMatchObject({ ok: true, outcome: 'captured' });
      expect((await thumbnailRow(failing.id))?.last_error).toBe('Browserfout (het tabblad van de browser is gecrasht)');
      expect((await thumbnailRow(shown.id))?.png?.equals(fakePng(domainOf(shown.name)))).toBe(true);
      // Bounded: never more than the capturer's two at once (the app's own capturer is idle here).
      expect(stack.agent.peakCapturesInFlight).toBeLessThanOrEqual(2);
      expect(stack.agent.peakCapturesInFlight).toBe(2);
    } finally {
      stack.agent.screenshotDelayMs = 0;
    }
  });
});

describe('after a container starts', () => {
  it('its site is captured THUMBNAIL_AFTER_START_S later, without anyone asking', async () => {
    const project = await site('foto-start');
    const started = Date.now();
    expect((await (await stack.as(NO_GROUP)).json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    await waitFor(async () => (await thumbnailRow(project.id))?.png != null, { description: 'the capture after the start', timeoutMs: 20_000, intervalMs: 100 });
    const [call] = stack.agent.capturesOf(domainOf(project.name));
    expect(call?.domain).toBe(domainOf(project.name));
    expect(Date.now() - started).toBeGreaterThanOrEqual(AFTER_START_S * 1000 - 100);

    // A stop and a start again: one more capture, after the delay.
    const member = await stack.as(NO_GROUP);
    expect((await member.json('PUT', `/api/user/dockers/${project.id}?action=stop`)).status).toBe(200);
    expect((await member.json('PUT', `/api/user/dockers/${project.id}?action=start`)).status).toBe(200);
    await waitFor(() => stack.agent.capturesOf(domainOf(project.name)).length === 2, { description: 'a capture after the restart', timeoutMs: 20_000, intervalMs: 100 });
  });
});

describe('GET /misc/browserimg2/small/{name}_s.png: stored thumbnails', () => {
  // The websites wall's seeded rows and thumbnails behind a control plane of their own
  // (the hosting stack above has no stored thumbnails to serve).
  let wall: SiteWall;
  beforeAll(async () => {
    wall = await startSiteWall();
  });
  afterAll(async () => {
    await wall?.app.stop();
    await wall?.database.destroy();
  });
  const PNG = WALL_PNG;
  async function signedIn(email: string): Promise<HttpSession> {
    const session = new HttpSession(wall.app.url);
    await session.signIn(email);
    return session;
  }

  const url = (file: string) => `${wall.app.url}/misc/browserimg2/small/${file}`;

  it('serves the PNG of a visible project with ETag, Last-Modified and a short must-revalidate cache', async () => {
    const response = await fetch(url('sam-portfolio_s.png'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('etag')).toBe('"abc123"');
    expect(response.headers.get('last-modified')).toBe(new Date('2026-11-01T10:00:00Z').toUTCString());
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+, must-revalidate/);
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);

    const revalidated = await fetch(url('sam-portfolio_s.png'), { headers: revalidate('"abc123"') });
    expect(revalidated.status).toBe(304);
    const byDate = await fetch(url('sam-portfolio_s.png'), {
      headers: { 'If-Modified-Since': new Date('2026-11-02T00:00:00Z').toUTCString(), 'Cache-Control': 'max-age=0' },
    });
    expect(byDate.status).toBe(304);
    const stale = await fetch(url('sam-portfolio_s.png'), { headers: revalidate('"other"') });
    expect(stale.status).toBe(200);
  });

  it('derives an ETag from the bytes when none was stored', async () => {
    const response = await fetch(url('quiz-master_s.png'));
    expect(response.status).toBe(200);
    const etag = `"${createHash('sha1').update(PNG).digest('base64url')}"`;
    expect(response.headers.get('etag')).toBe(etag);
    expect((await fetch(url('quiz-master_s.png'), { headers: revalidate(etag) })).status).toBe(304);
  });

  it('answers a plain 404 for hidden, unknown, thumbnail-less and failed captures', async () => {
    for (const file of ['olga-api_s.png', 'bestaat-niet_s.png', 'lotte-fotografie_s.png', 'daan-portfolio_s.png']) {
      const response = await fetch(url(file));
      expect(response.status, file).toBe(404);
      expect(response.headers.get('content-type'), file).toMatch(/^text\/plain/);
    }
  });

  it('refuses bad names with a 404 and never a 500 (and the web app does not swallow /misc)', async () => {
    const bad = [
      '..%2Fx_s.png',
      '..%2F..%2Fetc%2Fpasswd',
      'sam-portfolio.png',
      'sam-portfolio_s.jpg',
      'Sam-portfolio_s.png',
      'sam_portfolio_s.png',
      '1abc_s.png',
      `${'a'.repeat(64)}_s.png`,
      "x'%20or%201=1_s.png",
      '%00_s.png',
      '%E0%A4%A_s.png',
    ];
    for (const file of bad) {
      const response = await fetch(url(file));
      expect([400, 404], file).toContain(response.status);
      expect(response.headers.get('content-type') ?? '', file).not.toMatch(/html/);
    }
    const unrouted = await fetch(`${wall.app.url}/misc/something-else`);
    expect(unrouted.status).toBe(404);
    expect(unrouted.headers.get('content-type') ?? '').not.toMatch(/html/);
  });

  it('answers for every role alike (thumbnails are public like the wall)', async () => {
    for (const email of ['nieuw@devplein.test', 'student@devplein.test', 'admin@devplein.test']) {
      const session = await signedIn(email);
      const response = await session.raw('/misc/browserimg2/small/sam-portfolio_s.png');
      expect(response.status, email).toBe(200);
      const hidden = await session.raw('/misc/browserimg2/small/olga-api_s.png');
      expect(hidden.status, email).toBe(404);
    }
  });
});
