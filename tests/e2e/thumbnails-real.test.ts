/**
 * Site thumbnails with nothing faked: a student's real container behind the real Caddy, the real
 * host agent capturing it with Debian's Chromium (every request through Caddy), the control
 * plane storing the thumbnail and serving it on the wall's URL with a working ETag.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { decodePng, distinctColours, readPngSize } from '../../host-agent/src/drivers/browser/png.ts';
import { makeTestCerts, startTestAgent, type TestAgent, agentLinkEnv } from '../support/services/agent.ts';
import { startCaddy, type TestCaddy } from '../support/services/caddy.ts';
import { startControlPlane, type RunningControlPlane } from '../support/services/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../support/services/database.ts';
import { ensureWebImage, randomSuffix, testDocker } from '../support/services/docker.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { insertStaticSiteProject } from '../support/fixtures/projects.ts';
import { shotsDir } from '../support/stacks/e2e-app.ts';
import { waitFor } from '../support/clients/ports.ts';
import { writeFileSync } from 'node:fs';

const SITE = 'dev.devplein.test';
const suffix = randomSuffix();
const siteName = `thumb-${suffix}`;
const network = `devplein-thumbs-${suffix}`;
const docker = testDocker();

interface ScreenshotState {
  capturedAt: string | null;
  lastError: string | null;
  inFlight: boolean;
}

let workDir: string;
let caddy: TestCaddy;
let agent: TestAgent;
let database: TestDatabase;
let app: RunningControlPlane;

beforeAll(async () => {
  const image = await ensureWebImage();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-thumbs-'));
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  caddy = await startCaddy();
  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_DOCKER_NETWORK: network,
      AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
      AGENT_SITE_DOMAIN: SITE,
      AGENT_SCREENSHOT_PROXY: `127.0.0.1:${caddy.httpPort}`,
      AGENT_SCREENSHOT_PAGES: '2',
    },
  });
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
  app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(agent.address, certs),
      THUMBNAIL_AFTER_START_S: '1',
      THUMBNAIL_CRON: 'off',
    },
  });
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await agent?.stop();
  await caddy?.stop();
  await docker.getContainer(siteName).remove({ force: true }).catch(() => undefined);
  await docker.getNetwork(network).remove().catch(() => undefined);
  await database?.destroy();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('thumbnails of real sites', { timeout: 180_000 }, () => {
  it('a started container is captured through Caddy, stored, and served with a working ETag', async () => {
    const student = new HttpSession(app.url);
    expect((await student.signIn('student@devplein.test')).status).toBe(200);
    const admin = new HttpSession(app.url);
    expect((await admin.signIn('admin@devplein.test')).status).toBe(200);

    // A visible, approved project of the student on the 'Statische site' image.
    const projectId = await insertStaticSiteProject(database.knex, {
      name: siteName,
      domain: `${siteName}.${SITE}`,
      description: 'Een echte site voor de screenshot-test.',
      ownerEmail: 'student@devplein.test',
    });

    // Before any capture the wall's URL is a 404 (the tile falls back to without-screen.png).
    const thumbnailPath = `/misc/browserimg2/small/${siteName}_s.png`;
    expect((await fetch(`${app.url}${thumbnailPath}`)).status).toBe(404);

    // The student creates (and so starts) the container: the start event schedules a capture.
    expect((await student.json('POST', '/api/user/dockers', { id: projectId })).status).toBe(200);
    let state: ScreenshotState | undefined;
    await waitFor(
      async () => {
        state = (await admin.json<ScreenshotState>('GET', `/api/admin/dockers/${projectId}/screenshot`)).body;
        return Boolean(state.capturedAt) || Boolean(state.lastError);
      },
      { description: 'the capture after the container started', timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(state?.lastError).toBeNull();

    const response = await fetch(`${app.url}${thumbnailPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    const png = new Uint8Array(await response.arrayBuffer());
    writeFileSync(path.join(shotsDir(), 'thumbnail-real-site.png'), png);
    expect(readPngSize(png).width).toBe(320);
    // Not blank: the page's text makes more than a handful of colours (anti-aliased glyphs).
    expect(distinctColours(decodePng(png))).toBeGreaterThan(4);

    // As a browser revalidates (undici would add Cache-Control: no-cache to a bare If-None-Match).
    const again = await fetch(`${app.url}${thumbnailPath}`, { headers: { 'If-None-Match': etag ?? '', 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);

    // 'ververs screenshot': on demand, through the same path; the new capture is stored too.
    const before = state?.capturedAt;
    expect((await admin.json('POST', `/api/admin/dockers/${projectId}/screenshot`)).status).toBe(202);
    await waitFor(
      async () => {
        state = (await admin.json<ScreenshotState>('GET', `/api/admin/dockers/${projectId}/screenshot`)).body;
        return !state.inFlight && state.capturedAt !== before;
      },
      { description: 'the on-demand capture', timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(state?.lastError).toBeNull();
  });
});
