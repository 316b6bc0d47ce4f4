import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListen, type RunningOperatorListener, startOperatorListener } from './operator-listener.ts';

const silent = pino({ level: 'silent' });
let running: RunningOperatorListener | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(options: { beforeScrape?: () => Promise<void>; healthy?: boolean }): Promise<string> {
  running = await startOperatorListener({
    listen: '127.0.0.1:0',
    registry: { contentType: 'text/plain; version=0.0.4', metrics: async () => 'devplein_up 1\n' },
    ...(options.beforeScrape ? { beforeScrape: options.beforeScrape } : {}),
    health: async () => ({ healthy: options.healthy ?? true, body: { status: options.healthy === false ? 'down' : 'ok' } }),
    logger: silent,
  });
  return `http://127.0.0.1:${running.port}`;
}

describe('startOperatorListener', () => {
  it('serves /metrics after the scrape hook, /healthz by the health check, 404 and 405 otherwise', async () => {
    let scrapes = 0;
    const base = await start({ beforeScrape: async () => void (scrapes += 1) });
    const metrics = await fetch(`${base}/metrics`);
    expect([metrics.status, await metrics.text(), scrapes]).toEqual([200, 'devplein_up 1\n', 1]);
    expect(metrics.headers.get('cache-control')).toBe('no-store');
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('answers 503 for an unhealthy report and 500 when collecting fails', async () => {
    const base = await start({ healthy: false, beforeScrape: () => Promise.reject(new Error('agent gone')) });
    expect((await fetch(`${base}/healthz`)).status).toBe(503);
    expect((await fetch(`${base}/metrics`)).status).toBe(500);
  });

  it('parses host:port listen addresses and refuses others', () => {
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    for (const bad of ['9464', 'localhost:', ':80', 'host:99999']) expect(() => parseListen(bad)).toThrow();
  });
});
