/**
 * The screenshot browser is isolated from the agent (issue 16), proven with the real agent, a
 * real Caddy, Debian's Chromium and real iptables:
 *
 * - the agent (root here, as in CI) runs Chromium as its own unprivileged user with Chromium's
 *   sandbox on: the renderer lives in a user namespace of its own;
 * - a hostile student page tries the agent's gRPC port, Caddy's admin API, the metrics ports,
 *   soketi and MariaDB (canary listeners on ports this file picks, on every address) with fetch,
 *   WebSocket, images, redirects and WebRTC (STUN over UDP, TURN over TCP and UDP): no canary
 *   sees a single connection or datagram.
 *
 * Which fence stops what (the controls, with Chromium as a second test-only user and a chain of
 * their own, so agents of other test files cannot interfere):
 * - fetch, WebSocket, images and redirects to those addresses: the pool's route filter aborts
 *   requests off the dev domain, and Chromium sends every request to the proxy only (no
 *   direct connection at all), so no canary sees them even without iptables;
 * - WebRTC (STUN/TURN straight to an address the page names, around the proxy): the page DOES
 *   reach a canary without the owner rules and without the WebRTC flags (positive control);
 *   the owner rules alone stop it (their REJECT counter rises), and so do the WebRTC flags alone.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureOutcome, type CaptureResponse, ScreenshotServiceClient } from '@devplein/proto/screenshot';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import pino from 'pino';
import { BrowserFirewall, rejectedPackets } from '../../../host-agent/src/drivers/browser/browser-firewall.ts';
import { BrowserServerProcess, lookUpUser } from '../../../host-agent/src/drivers/browser/browser-server-process.ts';
import { ChromiumScreenshotter } from '../../../host-agent/src/drivers/browser/chromium-screenshotter.ts';
import { remoteBrowserLauncher } from '../../../host-agent/src/drivers/browser/launchers.ts';
import { commandLine, findProcessesWithArgument, processTree } from '../../../host-agent/src/drivers/browser/processes.ts';
import { CaddyProxyDriver } from '../../../host-agent/src/drivers/proxy/caddy-proxy-driver.ts';
import { BROWSER_USER, ensureSystemUser } from '../../support/fixtures/browser-user.ts';
import { makeTestCerts, readClientPems, startTestAgent, type TestAgent } from '../../support/services/agent.ts';
import { startCaddy, type TestCaddy } from '../../support/services/caddy.ts';
import { waitFor } from '../../support/clients/ports.ts';

/** The controls' own user and chain: no agent of another test file sets rules for them. */
const CONTROL_USER = 'devplein-browser-ctl';
const CONTROL_CHAIN = `DVPL-BRCTL-${randomBytes(3).toString('hex')}`;
const IPTABLES = '/usr/sbin/iptables';
const suffix = randomBytes(4).toString('hex');
const siteDomain = `iso-${suffix}.test`;
const site = (label: string) => `${label}.${siteDomain}`;

/** What the hostile page aims at, each a canary listener of this file (all addresses). */
const TCP_TARGETS = ['agent-grpc', 'caddy-admin', 'agent-metrics', 'control-plane-metrics', 'soketi', 'mariadb'] as const;

/** Counts every connection / datagram a canary receives. */
interface Canaries {
  tcpPorts: Record<(typeof TCP_TARGETS)[number], number>;
  udpPort: number;
  hits: string[];
  close(): Promise<void>;
}

async function startCanaries(): Promise<Canaries> {
  const hits: string[] = [];
  const servers: net.Server[] = [];
  const tcpPorts = {} as Record<(typeof TCP_TARGETS)[number], number>;
  for (const name of TCP_TARGETS) {
    const server = net.createServer((socket) => {
      hits.push(`tcp ${name} from ${socket.remoteAddress}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    servers.push(server);
    tcpPorts[name] = (server.address() as AddressInfo).port;
  }
  const udp = dgram.createSocket('udp4');
  udp.on('message', (_message, remote) => hits.push(`udp from ${remote.address}:${remote.port}`));
  await new Promise<void>((resolve) => udp.bind(0, '0.0.0.0', resolve));
  return {
    tcpPorts,
    udpPort: udp.address().port,
    hits,
    async close() {
      udp.close();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

/** The addresses a page can aim at on this machine: loopback and the host's own IPv4 addresses. */
function hostAddresses(): string[] {
  const own = Object.values(os.networkInterfaces())
    .flat()
    .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry!.address);
  return ['127.0.0.1', ...own];
}

/**
 * A student page that tries everything a page can to reach the canaries. Its load event waits
 * for /hold, which the upstream answers once the page reported (after its WebRTC gathering), so
 * the capture is taken only after every attempt was made.
 */
function hostilePage(canaries: Canaries): string {
  const hosts = hostAddresses();
  const tcp = Object.values(canaries.tcpPorts);
  const targets = hosts.flatMap((host) => tcp.map((port) => `${host}:${port}`));
  const script = `
    const targets = ${JSON.stringify(targets)};
    for (const target of targets) {
      fetch('http://' + target + '/', { mode: 'no-cors' }).catch(() => {});
      try { new WebSocket('ws://' + target + '/'); } catch {}
      new Image().src = 'http://' + target + '/pixel.png';
      // Server-side redirects to the same addresses (the site's own URL first).
      new Image().src = '/redir?to=' + encodeURIComponent('http://' + target + '/');
      fetch('/redir?to=' + encodeURIComponent('http://' + target + '/')).catch(() => {});
    }
    const hosts = ${JSON.stringify(hosts)};
    let candidates = 0;
    let state = 'none';
    try {
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: hosts.map((h) => 'stun:' + h + ':${canaries.udpPort}') },
        { urls: hosts.flatMap((h) => ['turn:' + h + ':${canaries.udpPort}?transport=udp', 'turn:' + h + ':${canaries.tcpPorts['agent-grpc']}?transport=tcp']), username: 'u', credential: 'p' },
      ] });
      pc.onicecandidate = (event) => { if (event.candidate) candidates += 1; };
      pc.createDataChannel('probe');
      pc.createOffer().then((offer) => pc.setLocalDescription(offer)).catch((error) => { state = 'error ' + error; });
      setTimeout(() => { state = pc.iceGatheringState; }, 2500);
    } catch (error) { state = 'no webrtc ' + error; }
    setTimeout(() => fetch('/report?candidates=' + candidates + '&state=' + encodeURIComponent(state)), 2600);
  `;
  return `<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head><body style="background:#1f7a4d"><h1>Niets aan de hand</h1><img src="/hold"><script>${script}</script></body></html>`;
}

let workDir: string;
let caddy: TestCaddy;
let agent: TestAgent;
let canaries: Canaries;
let upstream: http.Server;
let screenshots: ScreenshotServiceClient;
const reports: string[] = [];
let releaseHold: Array<() => void> = [];

function handle(request: http.IncomingMessage, response: http.ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x');
  const label = (request.headers.host ?? '').split('.')[0];
  if (label === 'jump') {
    // The main document itself redirects to the agent's gRPC port.
    response.writeHead(302, { Location: `http://127.0.0.1:${canaries.tcpPorts['agent-grpc']}/` });
    response.end();
    return;
  }
  switch (url.pathname) {
    case '/':
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(hostilePage(canaries));
      return;
    case '/redir':
      response.writeHead(302, { Location: url.searchParams.get('to') ?? '/' });
      response.end();
      return;
    case '/report':
      reports.push(url.search);
      response.end('ok');
      for (const release of releaseHold) release();
      releaseHold = [];
      return;
    case '/hold': {
      const answer = () => {
        if (response.writableEnded) return;
        response.writeHead(200, { 'Content-Type': 'image/gif' });
        response.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
      };
      releaseHold.push(answer);
      // Never longer than 8 s, whatever the page does.
      setTimeout(answer, 8_000).unref();
      return;
    }
    default:
      response.writeHead(404);
      response.end();
  }
}

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

function capture(domain: string): Promise<CaptureResponse> {
  return new Promise((resolve, reject) => {
    screenshots.capture(
      { domain, viewportWidth: 0, viewportHeight: 0, thumbnailWidth: 0, timeoutMs: 30_000 },
      metadata(),
      { deadline: new Date(Date.now() + 90_000) },
      (error, response) => (error ? reject(error) : resolve(response)),
    );
  });
}

/** The agent's Chromium main processes (not helpers). */
function agentBrowserPids(): number[] {
  return findProcessesWithArgument(`--proxy-server=http://127.0.0.1:${caddy.httpPort}`).filter((pid) => {
    const args = commandLine(pid) ?? [];
    return args.some((arg) => arg.startsWith('--devplein-screenshots=')) && !args.some((arg) => arg.startsWith('--type='));
  });
}

function isChromium(pid: number): boolean {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`)).startsWith('chrom');
  } catch {
    return false;
  }
}

/** Pids of the processes running as this uid (gone ones skipped). */
function processesOfUid(uid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return uidOf(pid) === uid;
      } catch {
        return false;
      }
    });
}

function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

beforeAll(async () => {
  ensureSystemUser(BROWSER_USER);
  ensureSystemUser(CONTROL_USER);
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-browser-iso-'));
  canaries = await startCanaries();
  caddy = await startCaddy();
  upstream = http.createServer(handle);
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  // Routes straight into Caddy's admin API (the agent is started later, for its own tests).
  const target = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  for (const label of ['probe', 'jump']) {
    const route = { match: [{ host: [site(label)] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: target }] }], terminal: true };
    const answer = await fetch(`${caddy.adminUrl}/config/apps/http/servers/${caddy.serverName}/routes/0`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(route),
    });
    if (!answer.ok) throw new Error(`Caddy refused the route: ${answer.status} ${await answer.text()}`);
  }
}, 60_000);

afterAll(async () => {
  for (const release of releaseHold) release();
  upstream?.close();
  await canaries?.close();
  await caddy?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('which fence stops what (controls: Chromium as a test user, sandbox on)', { timeout: 90_000 }, () => {
  let server: BrowserServerProcess;
  let firewall: BrowserFirewall;
  const logger = pino({ level: 'silent' });
  beforeAll(() => {
    const user = lookUpUser(CONTROL_USER)!;
    server = new BrowserServerProcess({ user, chromiumPath: '/usr/bin/chromium', logger, logLevel: 'warn' });
    firewall = new BrowserFirewall({ iptablesBinary: IPTABLES, uid: user.uid, proxy: `127.0.0.1:${caddy.httpPort}`, chain: CONTROL_CHAIN });
  });
  afterAll(async () => {
    await server?.stop();
    await firewall?.remove();
  });

  /** One capture of the hostile page on a fresh pool; the canaries' hits during it. */
  async function captureProbe(options: { allowNonProxiedUdp: boolean }): Promise<{ outcome: string; hits: string[]; reports: number }> {
    canaries.hits.length = 0;
    const reportsBefore = reports.length;
    const pool = new ChromiumScreenshotter({
      chromiumPath: '/usr/bin/chromium',
      proxy: `127.0.0.1:${caddy.httpPort}`,
      siteDomain,
      pages: 1,
      recycleAfter: 10,
      logger,
      launcher: remoteBrowserLauncher({ server: () => server.address() }),
      allowNonProxiedUdp: options.allowNonProxiedUdp,
    });
    try {
      const result = await pool.capture({ domain: site('probe'), viewport: { width: 800, height: 600 }, thumbnailWidth: 200, timeoutMs: 30_000 });
      return { outcome: `${result.outcome} ${result.reason}`, hits: [...canaries.hits], reports: reports.length - reportsBefore };
    } finally {
      await pool.close();
      // Closing hangs up on the browser server, which then closes that Chromium: until it is gone
      // its hostile page may still send, e.g. around a firewall the next step removes.
      const uid = lookUpUser(CONTROL_USER)!.uid;
      await waitFor(() => processesOfUid(uid).every((pid) => !isChromium(pid)), {
        description: `the control user's Chromium to exit`,
        timeoutMs: 20_000,
      });
    }
  }

  it('without owner rules and WebRTC flags the page reaches a canary through WebRTC, never through fetch, WebSocket or redirects', async () => {
    const { outcome, hits, reports: made } = await captureProbe({ allowNonProxiedUdp: true });
    expect(outcome).toBe('captured ');
    expect(made).toBe(1);
    // WebRTC went around the proxy: a STUN datagram or a TURN connection reached a canary.
    expect(hits.length, 'the positive control must reach a canary').toBeGreaterThan(0);
    // Only the WebRTC targets: the route filter and the proxy kept fetch, WebSocket, images and redirects off the other canaries.
    const webRtcTargets = hits.filter((hit) => hit.startsWith('udp ') || hit.startsWith('tcp agent-grpc '));
    expect(hits).toEqual(webRtcTargets);
  });

  it('the owner rules alone stop it: no canary is reached, and their REJECT counter rises', async () => {
    await firewall.apply();
    const before = (await rejectedPackets(IPTABLES, CONTROL_CHAIN)) ?? 0;
    const { outcome, hits, reports: made } = await captureProbe({ allowNonProxiedUdp: true });
    expect(outcome).toBe('captured ');
    expect(made).toBe(1);
    expect(hits).toEqual([]);
    expect(await rejectedPackets(IPTABLES, CONTROL_CHAIN)).toBeGreaterThan(before);
    await firewall.remove();
    expect(await rejectedPackets(IPTABLES, CONTROL_CHAIN), 'the chain is gone').toBeUndefined();
  });

  it('the WebRTC flags alone stop it too (no UDP around the proxy)', async () => {
    const { outcome, hits, reports: made } = await captureProbe({ allowNonProxiedUdp: false });
    expect(outcome).toBe('captured ');
    expect(made).toBe(1);
    expect(hits).toEqual([]);
  });
});

describe('the screenshot browser of the real agent', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
    agent = await startTestAgent({
      certDir: certs.dir,
      env: {
        AGENT_CADDY_ADMIN: caddy.adminUrl,
        AGENT_CADDY_SERVER: caddy.serverName,
        AGENT_RECONCILE_CRON: '0 0 1 1 *',
        AGENT_SITE_DOMAIN: siteDomain,
        AGENT_SCREENSHOT_PROXY: `127.0.0.1:${caddy.httpPort}`,
        AGENT_SCREENSHOT_PAGES: '1',
        AGENT_IPTABLES_BINARY: IPTABLES,
        LOG_LEVEL: 'debug',
      },
    });
    await waitFor(() => agent.output().includes('route keeper: routes reconciled'), { description: 'the start-up reconcile', timeoutMs: 30_000 });
    const credentials = grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem);
    screenshots = new ScreenshotServiceClient(agent.address, credentials);
    const target = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    // Written with the agent's own Caddy driver: the agent's ProxyService routes only to its own
    // containers' published ports, and these test sites are a plain HTTP server of this file.
    const routes = new CaddyProxyDriver({ adminUrl: caddy.adminUrl, server: caddy.serverName, listen: 'unused:1' });
    for (const [index, label] of ['probe', 'jump'].entries()) {
      await routes.upsertRoute({ domain: site(label), upstream: target, projectId: 870_000 + index });
    }
  }, 60_000);

  afterAll(async () => {
    screenshots?.close();
    await agent?.stop();
  });

  it('renders a hostile page with its renderer in a user namespace of its own, as a user without the agent’s rights; no canary is reached', async () => {
    const shot = await capture(site('probe'));
    expect(`${shot.outcome} ${shot.errorReason}`).toBe(`${CaptureOutcome.CAPTURE_OUTCOME_CAPTURED} `);
    // The page did run its attempts (WebRTC gathering included) before the capture.
    expect(reports.length).toBeGreaterThan(0);

    const [browserPid] = agentBrowserPids();
    expect(browserPid, 'the agent’s browser').toBeDefined();
    // Renderers are forked by the zygote and rewrite their command line into one string.
    const renderers = processTree(browserPid!).filter((pid) => (commandLine(pid) ?? []).join(' ').includes('--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    const ownNamespace = readlinkSync('/proc/self/ns/user');
    for (const renderer of renderers) expect(readlinkSync(`/proc/${renderer}/ns/user`), `renderer ${renderer}`).not.toBe(ownNamespace);
    // Neither the browser nor its helpers run as root or as the agent's user.
    const agentUid = uidOf(agent.pid()!);
    for (const pid of processTree(browserPid!)) expect(uidOf(pid), `process ${pid}: ${(commandLine(pid) ?? []).slice(0, 2).join(' ')}`).not.toBe(agentUid);
    expect(commandLine(browserPid!)).not.toContain('--no-sandbox');

    // The agent set the owner rules for that user before starting it: only Caddy's site port is open.
    const browserUid = lookUpUser(BROWSER_USER)!.uid;
    expect(uidOf(browserPid!)).toBe(browserUid);
    const output = spawnSync(IPTABLES, ['-w', '-S'], { encoding: 'utf8' }).stdout;
    expect(output).toContain(`-A OUTPUT -m owner --uid-owner ${browserUid} -j DEVPLEIN-BROWSER`);
    expect(output).toContain(`-A DEVPLEIN-BROWSER -d 127.0.0.1/32 -p tcp -m tcp --dport ${caddy.httpPort} -m comment --comment "devplein-agent:${agent.pid()}" -j ACCEPT`);

    const jumped = await capture(site('jump'));
    expect(jumped.outcome).toBe(CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE);
    expect(canaries.hits).toEqual([]);

    // Stopped, the agent takes its rule with it (the chain stays while other agents use it).
    const agentPid = agent.pid();
    await agent.stop();
    expect(spawnSync(IPTABLES, ['-w', '-S'], { encoding: 'utf8' }).stdout).not.toContain(`devplein-agent:${agentPid}"`);
  });
});
