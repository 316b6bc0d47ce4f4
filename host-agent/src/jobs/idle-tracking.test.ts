import dgram from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { SCREENSHOT_HEADER, accessLoggerPath } from '../drivers/proxy/access-log.ts';
import { createAgentMetrics, siteRequestCount } from '../metrics/metrics.ts';
import { type IdleTracking, startIdleTracking } from './idle-tracking.ts';

const tls = { AGENT_TLS_CA: '/certs/ca.pem', AGENT_TLS_CERT: '/certs/agent.pem', AGENT_TLS_KEY: '/certs/agent-key.pem' };
const token = 'f00d';
let dir: string;
let tracking: IdleTracking | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-idle-tracking-'));
});

afterEach(async () => {
  await tracking?.close();
  await rm(dir, { recursive: true, force: true });
});

/** An access log line as Caddy's net writer sends it, one per datagram. */
function send(address: string, host: string, headers: Record<string, string[]>, server: string): Promise<void> {
  const separator = address.lastIndexOf(':');
  const line = JSON.stringify({ logger: accessLoggerPath(server), msg: 'handled request', request: { host, uri: '/', headers }, status: 200 });
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve, reject) =>
    socket.send(`${line}\n`, Number(address.slice(separator + 1)), address.slice(0, separator), (error) => {
      socket.close();
      if (error) reject(error);
      else resolve();
    }),
  );
}

describe('startIdleTracking', () => {
  it("counts the screenshot browser's requests, but only a visitor's request is activity", async () => {
    const config = loadConfig({ ...tls, AGENT_DATA_DIR: dir, AGENT_ACCESS_LOG_LISTEN: '127.0.0.1:0' });
    const { idleStop } = config;
    if (!idleStop) throw new Error('idle auto-stop is on by default');
    const metrics = createAgentMetrics();
    const now = new Date(Date.UTC(2026, 10, 1));
    tracking = await startIdleTracking({
      config: { ...config, idleStop },
      logger: pino({ level: 'silent' }),
      metrics,
      visitToken: token,
      now: () => now,
    });
    if (!tracking) throw new Error('the access log listener did not start');
    const { accessLogAddress, activity } = tracking;

    await send(accessLogAddress, 'shot.dev.nl', { [SCREENSHOT_HEADER]: [token] }, config.caddy.server);
    await send(accessLogAddress, 'blog.dev.nl', { 'User-Agent': ['curl/7.88.1'] }, config.caddy.server);
    await expect.poll(() => siteRequestCount(metrics, 'visitor')).toBe(1);
    await expect.poll(() => siteRequestCount(metrics, 'screenshotter')).toBe(1);
    expect(activity.lastActivityOf('shot.dev.nl')).toBeUndefined();
    expect(activity.lastActivityOf('blog.dev.nl')).toEqual(now);
  });
});
