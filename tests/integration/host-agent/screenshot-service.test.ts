/**
 * Screenshots end to end: the real host agent (its own process, gRPC over mutual TLS) renders
 * sites with Debian's Chromium through a real Caddy, for a real container and for small
 * node:http sites this file runs (each behaving badly in its own way). The browser only ever
 * talks to Caddy; a redirect to the outside world ends as UNREACHABLE without any connection
 * leaving loopback.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyServiceClient } from '@devplein/proto/proxy';
import { CaptureOutcome, type CaptureRequest, type CaptureResponse, ScreenshotServiceClient } from '@devplein/proto/screenshot';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { decodePng, distinctColours, pixelAt, readPngSize } from '../../../host-agent/src/drivers/browser/png.ts';
import { commandLine, findProcessesWithArgument, processTree } from '../../../host-agent/src/drivers/browser/processes.ts';
import { ChromiumScreenshotter } from '../../../host-agent/src/drivers/browser/chromium-screenshotter.ts';
import { BrowserServerProcess, lookUpUser } from '../../../host-agent/src/drivers/browser/browser-server-process.ts';
import { remoteBrowserLauncher } from '../../../host-agent/src/drivers/browser/launchers.ts';
import { CaddyProxyDriver } from '../../../host-agent/src/drivers/proxy/caddy-proxy-driver.ts';
import pino from 'pino';
import { makeTestCerts, readClientPems, startTestAgent, type ClientPems, type TestAgent } from '../../support/services/agent.ts';
import { startCaddy, type TestCaddy, visitSite } from '../../support/services/caddy.ts';
import { ensureWebImage } from '../../support/services/docker.ts';
import { waitFor } from '../../support/clients/ports.ts';

const suffix = randomBytes(4).toString('hex');
const siteDomain = `shots-${suffix}.test`;
const docker = new Docker({ socketPath: process.env.DOCKER_SOCKET ?? '/var/run/docker.sock' });
const network = `devplein-test-shots-${suffix}`;
const containerName = `devplein-test-shots-web-${suffix}`;
const site = (label: string) => `${label}.${siteDomain}`;

/** Distinct page colours, so a screenshot can be checked pixel by pixel. */
const GREEN = [31, 122, 77] as const;
const ORANGE = [230, 126, 34] as const;
const RED = [192, 57, 43] as const;

let workDir: string;
let pems: ClientPems;
let caddy: TestCaddy;
let agent: TestAgent;
let screenshots: ScreenshotServiceClient;
let proxyClient: ProxyServiceClient;
let upstream: http.Server;
const hangingSockets = new Set<Socket>();
/** When the 'hang' site received each request (ms since the epoch): the capture's load started just before. */
const hangArrivals: number[] = [];
const upstreamHits: string[] = [];
/** What the 'memory' site saw on each visit: the Cookie header and the localStorage value. */
const memoryVisits: Array<{ cookie: string; stored: string }> = [];
/** The Cookie header of the memory site's latest page request (the page's own fetch carries its fresh cookie). */
let memoryDocumentCookie = '';

const page = (background: readonly number[], body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>test</title>${head}</head>` +
  `<body style="margin:0;background:rgb(${background.join(',')});font:32px sans-serif;color:#fff">` +
  `<h1 style="margin:40px">${body}</h1></body></html>`;

/** Big black text on white in the font family asked for: what a thumbnail must still show. */
const textPage = (fontFamily: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>tekst</title></head>` +
  `<body style="margin:0;background:#fff;color:#000;font:120px/1 ${fontFamily}"><p style="margin:40px">${text}</p></body></html>`;

/** Pixels darker than mid-grey inside a box of `image`. */
function darkPixels(image: ReturnType<typeof decodePng>, box: { x: number; y: number; width: number; height: number }): number {
  let dark = 0;
  for (let y = box.y; y < box.y + box.height; y += 1) {
    for (let x = box.x; x < box.x + box.width; x += 1) {
      const [r, g, b] = pixelAt(image, x, y);
      if (r + g + b < 3 * 128) dark += 1;
    }
  }
  return dark;
}

/** One upstream for every test site; the Host header says which behaviour. */
function handle(request: http.IncomingMessage, response: http.ServerResponse): void {
  const label = (request.headers.host ?? '').split('.')[0] ?? '';
  upstreamHits.push(`${request.headers.host}${request.url}`);
  const html = (status: number, text: string) => {
    response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(text);
  };
  switch (label) {
    case 'page':
      return html(200, page(GREEN, 'Portfolio van Emma'));
    case 'hang':
      // Accepts the request and never answers.
      hangArrivals.push(Date.now());
      hangingSockets.add(request.socket);
      return;
    case 'away':
      response.writeHead(302, { Location: 'http://example.org/' });
      response.end();
      return;
    case 'fail':
      return html(500, page(RED, 'Fatal error: database connection failed'));
    case 'alert':
      return html(200, page(ORANGE, 'Welkom', "<script>alert('Welkom op mijn site!'); confirm('Cookies?');</script>"));
    case 'busy':
      if (request.url?.startsWith('/poll')) return html(200, 'ok');
      return html(
        200,
        page(GREEN, 'Live scores', '<script>setInterval(() => fetch("/poll?" + Math.random()).catch(() => {}), 50)</script>'),
      );
    case 'spin':
      // Loads fine, then its script never gives the renderer back: no frame can be painted.
      return html(200, page(GREEN, 'Oneindige lus', "<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0))</script>"));
    case 'memory':
      // Leaves a cookie and localStorage behind, and reports what an earlier visit left.
      if (request.url?.startsWith('/seen')) {
        memoryVisits.push({ cookie: memoryDocumentCookie, stored: new URL(request.url, 'http://x').searchParams.get('stored') ?? '' });
        return html(200, 'ok');
      }
      memoryDocumentCookie = request.headers.cookie ?? '';
      response.setHeader('Set-Cookie', 'bezoek=1; Path=/; Max-Age=3600');
      return html(
        200,
        page(GREEN, 'Geheugen', "<script>fetch('/seen?stored=' + (localStorage.getItem('bezoek') ?? '')); localStorage.setItem('bezoek', 'ja');</script>"),
      );
    case 'arial':
      return html(200, textPage('Arial, sans-serif', 'Hallo Wereld'));
    case 'liberation':
      return html(200, textPage("'Liberation Sans', sans-serif", 'Hallo Wereld'));
    case 'dejavu':
      return html(200, textPage("'DejaVu Sans', sans-serif", 'Hallo Wereld'));
    case 'blank':
      return html(200, textPage('Arial, sans-serif', ''));
    case 'cdn':
      return html(200, page(ORANGE, 'Met CDN', '<script src="http://cdn.example.com/jquery.js"></script><link rel="stylesheet" href="https://fonts.example.net/x.css">'));
    default:
      return html(404, 'unknown test site');
  }
}

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

function capture(request: Partial<CaptureRequest> & { domain: string }): Promise<CaptureResponse> {
  // A generous limit unless a test asks for one: this 2-core machine is often busy with other suites.
  const full: CaptureRequest = { viewportWidth: 0, viewportHeight: 0, thumbnailWidth: 0, timeoutMs: 30_000, ...request };
  return new Promise((resolve, reject) => {
    screenshots.capture(full, metadata(), { deadline: new Date(Date.now() + 90_000) }, (error, response) => (error ? reject(error) : resolve(response)));
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

/**
 * A route on the agent's Caddy server to this file's test site, written with the agent's own
 * Caddy driver: the agent's ProxyService routes only to its own containers' published ports.
 */
async function addRoute(domain: string, target: string, projectId: number): Promise<void> {
  await new CaddyProxyDriver({ adminUrl: caddy.adminUrl, server: caddy.serverName, listen: 'unused:1' }).upsertRoute({ domain, upstream: target, projectId });
}

interface TcpSocket {
  remote: string;
  state: string;
  inode: string;
}

/** Every TCP socket of this network namespace: remote address (hex, as /proc writes it), state, inode. */
function tcpSockets(): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      sockets.push({ remote: fields[2]!, state: fields[3]!, inode: fields[9]! });
    }
  }
  return sockets;
}

/** Whether a /proc remote address (hex ip:port) is on loopback (IPv4, IPv6 or IPv4-mapped). */
function isLoopback(remote: string): boolean {
  const [address = ''] = remote.split(':');
  if (address.length === 8) return address.endsWith('7F'); // little-endian 127.x.x.x
  return address === '00000000000000000000000001000000' || (address.startsWith('0000000000000000FFFF0000') && address.endsWith('7F'));
}

/** Socket inodes held by the processes in `pids`. */
function socketInodes(pids: number[]): Set<string> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  }
  return inodes;
}

function expectPng(png: Buffer, width: number, height: number): void {
  expect(png.length).toBeGreaterThan(0);
  expect(readPngSize(png)).toEqual({ width, height });
}

function expectColourNear(actual: [number, number, number], expected: readonly number[]): void {
  actual.forEach((value, index) => expect(Math.abs(value - expected[index]!), `channel ${index} of ${actual.join(',')}`).toBeLessThanOrEqual(3));
}

/** The agent's pino lines, parsed. */
function logLines(): Array<Record<string, unknown>> {
  return agent
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The agent's Chromium main process: the one with our Caddy as proxy and the pool's marker, not a helper (--type=...). */
function agentBrowserPids(): number[] {
  return findProcessesWithArgument(`--proxy-server=http://127.0.0.1:${caddy.httpPort}`).filter((pid) => {
    const args = commandLine(pid) ?? [];
    return args.some((arg) => arg.startsWith('--devplein-screenshots=')) && !args.some((arg) => arg.startsWith('--type='));
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-shots-'));
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  caddy = await startCaddy();
  await docker.createNetwork({ Name: network, Driver: 'bridge', Labels: { 'devplein.test': 'true' } });
  upstream = http.createServer(handle);
  upstream.on('connection', (socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));

  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      LOG_LEVEL: 'debug',
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_DOCKER_NETWORK: network,
      AGENT_PUBLISH_ADDRESS: '127.0.0.1',
      // Once a year: the routes this file adds by hand have no container and must stay.
      AGENT_RECONCILE_CRON: '0 0 1 1 *',
      AGENT_SITE_DOMAIN: siteDomain,
      AGENT_SCREENSHOT_PROXY: `127.0.0.1:${caddy.httpPort}`,
      AGENT_SCREENSHOT_PAGES: '4',
    },
  });
  await waitFor(() => logLines().some((line) => line.msg === 'route keeper: routes reconciled'), { description: 'the start-up reconcile', timeoutMs: 30_000 });
  const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
  screenshots = new ScreenshotServiceClient(agent.address, credentials);
  proxyClient = new ProxyServiceClient(agent.address, credentials);
  const target = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  let projectId = 810_000;
  for (const label of ['page', 'hang', 'away', 'fail', 'alert', 'busy', 'cdn', 'spin', 'memory', 'arial', 'liberation', 'dejavu', 'blank']) await addRoute(site(label), target, (projectId += 1));
});

afterAll(async () => {
  screenshots?.close();
  proxyClient?.close();
  await agent?.stop();
  await docker.getContainer(containerName).remove({ force: true }).catch(() => undefined);
  await docker.getNetwork(network).remove().catch(() => undefined);
  for (const socket of hangingSockets) socket.destroy();
  upstream?.close();
  await caddy?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ScreenshotService with Chromium through Caddy', { timeout: 120_000 }, () => {
  it('captures a real container served through Caddy: both PNGs at the right size, showing the page', async () => {
    // The test web image with a coloured page of its own; managed labels, so the agent routes it.
    const html = page(GREEN, 'Hallo vanuit de container');
    const container = await docker.createContainer({
      name: containerName,
      Image: await ensureWebImage(),
      Cmd: ['/bin/sh', '-c', `printf '%s' '${html}' > /www/index.html && exec httpd -f -p 80 -h /www`],
      Labels: {
        'devplein.managed': 'true',
        'devplein.project-id': String(820_000 + Math.floor(Math.random() * 9_999)),
        'devplein.domain': site('web'),
        'devplein.owner-id': '1',
        'devplein.ssh': 'false',
        'devplein.wordpress': 'false',
        'devplein.http-port': '80',
      },
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { Init: true, NetworkMode: network, PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    });
    await container.start();
    await waitFor(
      async () => {
        const answer = await visitSite(caddy.httpPort, site('web')).catch(() => undefined);
        return answer?.status === 200 && answer.body.includes('Hallo vanuit de container');
      },
      { description: 'the container to be routed by the agent', timeoutMs: 15_000 },
    );

    const shot = await capture({ domain: site('web') });
    expect(shot.errorReason).toBe('');
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_CAPTURED);
    expect(shot.httpStatus).toBe(200);
    expect(shot.capturedAt).toBeInstanceOf(Date);
    expectPng(shot.fullPng, 1280, 800);
    expectPng(shot.thumbnailPng, 320, 200);
    const full = decodePng(shot.fullPng);
    // The page's background fills the corners; the white heading makes it more than one colour.
    expectColourNear(pixelAt(full, 1270, 790), GREEN);
    expectColourNear(pixelAt(full, 640, 600), GREEN);
    expect(distinctColours(full)).toBeGreaterThan(2);
    const thumbnail = decodePng(shot.thumbnailPng);
    expectColourNear(pixelAt(thumbnail, 300, 190), GREEN);
    expect(distinctColours(thumbnail)).toBeGreaterThan(2);
    const sampleDir = process.env.SCREENSHOT_SAMPLE_DIR;
    if (sampleDir) {
      await mkdir(sampleDir, { recursive: true });
      await writeFile(path.join(sampleDir, 'container-full.png'), shot.fullPng);
      await writeFile(path.join(sampleDir, 'container-thumbnail.png'), shot.thumbnailPng);
    }
  });

  it('shows the text of a site in its thumbnail, in Liberation Sans where the site asks for Arial (fonts-liberation)', async () => {
    const [arial, liberation, dejavu, blank] = await Promise.all(['arial', 'liberation', 'dejavu', 'blank'].map((label) => capture({ domain: site(label) })));
    for (const shot of [arial, liberation, dejavu, blank]) expect(`${shot!.outcome} ${shot!.errorReason}`).toBe(`${CaptureOutcome.CAPTURE_OUTCOME_CAPTURED} `);
    // The 120 px line at (40, 40) of 1280×800 is 30 px high at (10, 10) of the 320×200 thumbnail.
    const textBox = { x: 0, y: 0, width: 320, height: 60 };
    expect(darkPixels(decodePng(blank!.thumbnailPng), textBox)).toBe(0);
    expect(darkPixels(decodePng(arial!.thumbnailPng), textBox)).toBeGreaterThan(200);
    // Arial is drawn with its metric twin from fonts-liberation. Without that package fontconfig
    // answers every family it lacks with DejaVu Sans (fontconfig-config depends on it), so Arial
    // (also Chromium's sans-serif) would look like DejaVu.
    const pixels = (shot: CaptureResponse | undefined) => decodePng(shot!.fullPng).data;
    expect(pixels(arial).equals(pixels(liberation))).toBe(true);
    expect(pixels(arial).equals(pixels(dejavu))).toBe(false);
  });

  it('ends a site that never answers as TIMEOUT in time, while three others in the same batch are captured', async () => {
    const started = Date.now();
    const timed = async (request: Parameters<typeof capture>[0]) => {
      const response = await capture(request);
      return { response, endedAt: Date.now() };
    };
    const [hang, plain, alerting, busy] = await Promise.all([
      timed({ domain: site('hang'), timeoutMs: 3_000 }),
      timed({ domain: site('page') }),
      timed({ domain: site('alert') }),
      timed({ domain: site('busy') }),
    ]);
    expect(hang.response.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_TIMEOUT);
    // 'binnen 3 s' normally; 'binnen 8 s' (the hard deadline) when this machine is very busy.
    expect(hang.response.errorReason).toMatch(/^de site antwoordde niet binnen \d+ s$/);
    expect(hang.response.fullPng.length).toBe(0);
    // The time limit counts from the moment the page loads (the site got the request), not from
    // the call: a browser that is slow to start or to open tabs on a busy host is not held
    // against the site (chromium-screenshotter.ts, captureInTab). 3 s limit, 8 s hard deadline.
    const hangRequested = hangArrivals.find((at) => at >= started);
    expect(hangRequested, 'the hanging site was asked for its page').toBeDefined();
    expect(hang.endedAt - (hangRequested ?? started)).toBeLessThan(3_000 + 6_000);
    for (const { response } of [plain, alerting, busy]) {
      expect(response.errorReason).toBe('');
      expect(response.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_CAPTURED);
      expectPng(response.fullPng, 1280, 800);
      expectPng(response.thumbnailPng, 320, 200);
    }
    // The alert and confirm were dismissed: the page behind them is what got captured.
    expectColourNear(pixelAt(decodePng(alerting.response.fullPng), 1000, 700), ORANGE);
    expectColourNear(pixelAt(decodePng(busy.response.fullPng), 1000, 700), GREEN);
  });

  it('reports a redirect to another domain as UNREACHABLE naming it, and no connection leaves loopback', async () => {
    // Sample every 10 ms: the TCP sockets of the browser's processes, and any connection attempt
    // (SYN_SENT, state 02) on this machine that is not to loopback.
    const browserConnections = new Set<string>();
    const outside = new Set<string>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const inodes = socketInodes(agentBrowserPids().flatMap((pid) => processTree(pid)));
        for (const socket of tcpSockets()) {
          const isBrowser = inodes.has(socket.inode);
          if (isBrowser && socket.remote !== '00000000:0000') browserConnections.add(socket.remote);
          if (!isLoopback(socket.remote) && (isBrowser || socket.state === '02')) outside.add(`${socket.remote} state ${socket.state}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const before = upstreamHits.length;
    const shot = await capture({ domain: site('away'), timeoutMs: 5_000 });
    sampling = false;
    await sampler;
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE);
    expect(shot.errorReason).toContain('example.org');
    expect(shot.errorReason).toContain(siteDomain);
    expect(shot.fullPng.length).toBe(0);
    expect([...outside]).toEqual([]);
    // Not vacuous: the browser did talk, to Caddy's port only (hex in /proc).
    const caddyPort = caddy.httpPort.toString(16).toUpperCase().padStart(4, '0');
    expect(browserConnections.size).toBeGreaterThan(0);
    for (const remote of browserConnections) expect(remote.endsWith(`:${caddyPort}`), remote).toBe(true);
    // The upstream saw only the site's own request; example.org ended at Caddy's catch-all.
    // (Late polls of the previous test's page may still arrive: only this site's hits count.)
    expect(upstreamHits.slice(before).filter((hit) => !hit.startsWith(site('busy')))).toEqual([`${site('away')}/`]);
  });

  it('captures a page whose scripts and styles come from outside the dev domain, without loading them', async () => {
    const started = Date.now();
    const shot = await capture({ domain: site('cdn'), timeoutMs: 20_000 });
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_CAPTURED);
    // The outside requests were refused at once, not waited out (a few seconds here, more on a very busy machine).
    expect(Date.now() - started).toBeLessThan(15_000);
    expectColourNear(pixelAt(decodePng(shot.fullPng), 1000, 700), ORANGE);
  });

  it('reports a 500 page as HTTP_ERROR with its status and still returns both PNGs', async () => {
    const shot = await capture({ domain: site('fail') });
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR);
    expect(shot.httpStatus).toBe(500);
    expect(shot.errorReason).toContain('500');
    expectPng(shot.fullPng, 1280, 800);
    expectPng(shot.thumbnailPng, 320, 200);
    expectColourNear(pixelAt(decodePng(shot.fullPng), 1000, 700), RED);
  });

  it('reports a domain without a route (Caddy’s catch-all) as UNREACHABLE', async () => {
    const shot = await capture({ domain: site('nothing-here') });
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE);
    expect(shot.httpStatus).toBe(404);
    expect(shot.errorReason).toContain('kent dit domein niet');
  });

  it('honours the viewport and thumbnail width asked for', async () => {
    const shot = await capture({ domain: site('page'), viewportWidth: 1024, viewportHeight: 768, thumbnailWidth: 256 });
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_CAPTURED);
    expectPng(shot.fullPng, 1024, 768);
    expectPng(shot.thumbnailPng, 256, 192);
  });

  it('refuses anything but a project domain under the dev domain with INVALID_ARGUMENT', async () => {
    for (const domain of [
      'example.org',
      `http://${site('page')}/`,
      `${site('page')}/admin`,
      `${site('page')}:8080`,
      `user@${site('page')}`,
      '127.0.0.1',
      '[::1]',
      `a.${site('page')}`,
      siteDomain,
      `${site('page')}.example.org`,
      '',
    ]) {
      const error = await refusal(capture({ domain }));
      expect(error.code, domain).toBe(grpc.status.INVALID_ARGUMENT);
    }
    for (const bad of [{ viewportWidth: 50_000 }, { thumbnailWidth: 5_000 }, { timeoutMs: 10 }, { viewportHeight: -1 }]) {
      expect((await refusal(capture({ domain: site('page'), ...bad }))).code, JSON.stringify(bad)).toBe(grpc.status.INVALID_ARGUMENT);
    }
  });

  it('starts a new browser after the old one is killed, and the next capture works', async () => {
    const [pid, ...others] = agentBrowserPids();
    expect(pid, 'the agent’s browser process').toBeDefined();
    expect(others).toEqual([]);
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => !agentBrowserPids().includes(pid!), { description: 'the browser to die', timeoutMs: 5_000 });

    const shot = await capture({ domain: site('page') });
    expect(shot.errorReason).toBe('');
    expect(shot.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_CAPTURED);
    expectColourNear(pixelAt(decodePng(shot.fullPng), 1000, 700), GREEN);
    const [newPid] = agentBrowserPids();
    expect(newPid).toBeDefined();
    expect(newPid).not.toBe(pid);
  });
});

describe('ChromiumScreenshotter in this process (pool limits), its browsers from the browser server', { timeout: 120_000 }, () => {
  // As the agent does when root: the browser server as devplein-browser (made by global setup
  // or the isolation test; skipped to the in-process fallback when it is missing). This file's
  // agent has already set the owner rules that let that user reach this Caddy.
  let server: BrowserServerProcess | undefined;
  beforeAll(async () => {
    const user = lookUpUser('devplein-browser');
    if (user && process.getuid?.() === 0) {
      server = new BrowserServerProcess({ user, chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', logger: pino({ level: 'silent' }), logLevel: 'warn' });
      // Started before the timed tests: its start is not a capture's time.
      await server.address();
    }
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });
  const ownBrowsers = () =>
    findProcessesWithArgument(`--proxy-server=http://127.0.0.1:${caddy.httpPort}`).filter((pid) => {
      const args = commandLine(pid) ?? [];
      return args.some((arg) => arg.startsWith(`--devplein-screenshots=${process.pid}-`)) && !args.some((arg) => arg.startsWith('--type='));
    });
  const screenshotter = (options: { pages: number; recycleAfter: number; screenshotAllowanceMs?: number }) =>
    new ChromiumScreenshotter({
      chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      proxy: `127.0.0.1:${caddy.httpPort}`,
      siteDomain,
      logger: pino({ level: 'silent' }),
      ...(server ? { launcher: remoteBrowserLauncher({ server: () => server!.address() }) } : {}),
      ...options,
    });
  const request = (domain: string, timeoutMs = 30_000) => ({ domain, viewport: { width: 1280, height: 800 }, thumbnailWidth: 320, timeoutMs });

  it('frees the slot of a page that never paints at the hard deadline, and the next capture on that pool works', async () => {
    const pool = screenshotter({ pages: 1, recycleAfter: 50, screenshotAllowanceMs: 1_500 });
    try {
      // The hard deadline ends the capture (without it, it would wait for a paint that never comes,
      // past this test's own timeout); how long it took on a busy machine is no measure of it.
      const stuck = await pool.capture(request(site('spin'), 8_000));
      expect(stuck.outcome).toBe('timeout');
      // 'niet binnen 10 s vastgelegd (de pagina bleef bezig)'; on a very busy machine the page may not even have answered by then.
      expect(stuck.reason).toMatch(/niet binnen 10 s/);
      const next = await pool.capture(request(site('page')));
      expect(next.reason).toBe('');
      expect(next.outcome).toBe('captured');
    } finally {
      await pool.close();
    }
  });

  it('reuses its tab for the next capture without carrying over cookies or storage', async () => {
    const pool = screenshotter({ pages: 1, recycleAfter: 50 });
    try {
      memoryVisits.length = 0;
      for (let visit = 0; visit < 3; visit += 1) {
        const result = await pool.capture(request(site('memory')));
        expect(`${result.outcome} ${result.reason}`).toBe('captured ');
      }
      // The script's report may still be on its way when the screenshot is taken.
      await waitFor(() => memoryVisits.length === 3, { description: 'three reports of the memory site', timeoutMs: 10_000 });
      expect(memoryVisits).toEqual(Array(3).fill({ cookie: '', stored: '' }));
      // One browser, and one tab reused: no more launches than the first.
      expect(pool.launchCount).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('recycles the browser after recycleAfter captures without failing the captures in flight', async () => {
    const pool = screenshotter({ pages: 2, recycleAfter: 2 });
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => pool.capture(request(site('page')))));
      expect(results.map((result) => `${result.outcome} ${result.reason}`)).toEqual(Array(5).fill('captured '));
      expect(pool.launchCount).toBe(3);
      // The retired browsers close once their captures are done: only the current one is left.
      await waitFor(() => ownBrowsers().length === 1, { description: 'the retired browsers to close', timeoutMs: 10_000 });
      expect(ownBrowsers()).toEqual([pool.browserPid()]);
    } finally {
      await pool.close();
    }
    await waitFor(() => ownBrowsers().length === 0, { description: 'close() to stop the browser', timeoutMs: 10_000 });
  });
});
