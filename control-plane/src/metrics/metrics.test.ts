import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { UNMATCHED_ROUTE, countCaptureOutcome, createControlPlaneMetrics, routeTemplate } from './metrics.ts';
import { countByState, parseListen, refreshContainerStates, startMetricsServer, type RunningMetricsServer } from './metrics-server.ts';

const silent = pino({ level: 'silent' });
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The value of the sample line starting with `prefix` (name plus labels), or undefined. */
function value(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function serve(app: Koa): Promise<string> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('routeTemplate', () => {
  it('is the matched route template, or one fixed label when no route matched', () => {
    expect(routeTemplate({ _matchedRoute: '/api/user/dockers/:projectId' })).toBe('/api/user/dockers/:projectId');
    expect(routeTemplate({})).toBe(UNMATCHED_ROUTE);
    expect(routeTemplate({ _matchedRoute: /regex/ })).toBe(UNMATCHED_ROUTE);
  });
});

describe('httpMiddleware', () => {
  it('counts by method, route template (never the raw path) and status, thrown errors too', async () => {
    const metrics = createControlPlaneMetrics();
    const app = new Koa();
    app.silent = true;
    app.use(metrics.httpMiddleware());
    const router = new Router();
    router.get('/items/:id', (ctx) => {
      ctx.body = { id: ctx.params.id };
    });
    router.get('/boom', () => {
      throw Object.assign(new Error('nope'), { status: 418 });
    });
    app.use(router.routes());
    const url = await serve(app);
    await fetch(`${url}/items/1`);
    await fetch(`${url}/items/2`);
    await fetch(`${url}/boom`);
    await fetch(`${url}/elsewhere/123`);
    const text = await metrics.registry.metrics();
    expect(value(text, 'devplein_http_requests_total{method="GET",route="/items/:id",status="200"}')).toBe(2);
    expect(value(text, 'devplein_http_requests_total{method="GET",route="/boom",status="418"}')).toBe(1);
    expect(value(text, `devplein_http_requests_total{method="GET",route="${UNMATCHED_ROUTE}",status="404"}`)).toBe(1);
    expect(text).not.toContain('/items/1');
    expect(text).not.toContain('/elsewhere/123');
    expect(value(text, 'devplein_http_request_duration_seconds_count{method="GET",route="/items/:id"}')).toBe(2);
  });
});

describe('agent calls, captures, container states', () => {
  it('counts agent calls by dev server, method and outcome, captures by outcome (a rejection as error)', async () => {
    const metrics = createControlPlaneMetrics();
    metrics.observeAgentCall('dev1', 'ListContainers', 'ok', 0.01);
    metrics.observeAgentCall('dev1', 'ListContainers', 'UNAVAILABLE', 0.2);
    metrics.observeAgentCall('dev2', 'ListContainers', 'ok', 0.01);
    await countCaptureOutcome('dev1', Promise.resolve({ outcome: 'timeout' }), metrics);
    await expect(countCaptureOutcome('dev2', Promise.reject(new Error('db down')), metrics)).rejects.toThrow('db down');
    const text = await metrics.registry.metrics();
    expect(value(text, 'devplein_agent_calls_total{host="dev1",method="ListContainers",outcome="ok"}')).toBe(1);
    expect(value(text, 'devplein_agent_calls_total{host="dev1",method="ListContainers",outcome="UNAVAILABLE"}')).toBe(1);
    expect(value(text, 'devplein_agent_calls_total{host="dev2",method="ListContainers",outcome="ok"}')).toBe(1);
    expect(value(text, 'devplein_agent_call_duration_seconds_count{host="dev1",method="ListContainers"}')).toBe(2);
    expect(value(text, 'devplein_thumbnail_captures_total{host="dev1",outcome="timeout"}')).toBe(1);
    expect(value(text, 'devplein_thumbnail_captures_total{host="dev2",outcome="error"}')).toBe(1);
  });

  it('counts containers per dev server; one that does not answer keeps its counts and gets agent_up 0', async () => {
    const metrics = createControlPlaneMetrics();
    let dev2 = (): Promise<never> => Promise.resolve([{ state: 'running' }, { state: 'running' }, { state: 'exited' }] as never);
    const link = (name: string, list: () => Promise<never>) => ({ name, client: { containers: { listContainers: list } } }) as never;
    const agents = { links: [link('dev1', async () => [{ state: 'paused' }] as never), link('dev2', () => dev2())] };
    await refreshContainerStates({ metrics, agents, logger: silent });
    let text = await metrics.registry.metrics();
    expect(value(text, 'devplein_containers{host="dev2",state="running"}')).toBe(2);
    expect(value(text, 'devplein_containers{host="dev1",state="paused"}')).toBe(1);
    expect(value(text, 'devplein_agent_up{host="dev2"}')).toBe(1);
    dev2 = () => Promise.reject(new Error('down'));
    await refreshContainerStates({ metrics, agents, logger: silent });
    text = await metrics.registry.metrics();
    expect(value(text, 'devplein_containers{host="dev2",state="running"}')).toBe(2);
    expect(value(text, 'devplein_containers{host="dev2",state="exited"}')).toBe(1);
    expect(value(text, 'devplein_agent_up{host="dev2"}')).toBe(0);
    expect(value(text, 'devplein_agent_up{host="dev1"}')).toBe(1);
    // A state no container has any more goes away (only that dev server's series are replaced).
    dev2 = () => Promise.resolve([{ state: 'exited' }] as never);
    await refreshContainerStates({ metrics, agents, logger: silent });
    text = await metrics.registry.metrics();
    expect(text).not.toContain('devplein_containers{host="dev2",state="running"}');
    expect(value(text, 'devplein_containers{host="dev2",state="exited"}')).toBe(1);
    expect(value(text, 'devplein_containers{host="dev1",state="paused"}')).toBe(1);
  });

  it('countByState and parseListen', () => {
    expect([...countByState([{ state: 'running' }, { state: '' }, { state: 'running' }])]).toEqual([
      ['running', 2],
      ['unknown', 1],
    ]);
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(() => parseListen('9464')).toThrow();
  });
});

describe('METRICS_LISTEN', () => {
  it('defaults to 127.0.0.1:9464 and an empty value turns the listener off', () => {
    expect(loadConfig({ DEV_LOGIN: '1' }, () => 'x'.repeat(40)).metricsListen).toBe('127.0.0.1:9464');
    expect(loadConfig({ DEV_LOGIN: '1', METRICS_LISTEN: '' }, () => 'x'.repeat(40)).metricsListen).toBeNull();
    expect(loadConfig({ DEV_LOGIN: '1', METRICS_LISTEN: '127.0.0.1:0' }, () => 'x'.repeat(40)).metricsListen).toBe('127.0.0.1:0');
    expect(() => loadConfig({ DEV_LOGIN: '1', METRICS_LISTEN: 'nonsense' }, () => 'x'.repeat(40))).toThrow(/METRICS_LISTEN/);
  });
});

describe('startMetricsServer', () => {
  it('serves /metrics and /healthz, 404 elsewhere, and closes', async () => {
    const metrics = createControlPlaneMetrics();
    const server: RunningMetricsServer = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics,
      agents: { links: [{ name: 'dev1', client: { containers: { listContainers: async () => [{ state: 'paused' }] } } } as never] },
      health: async () => ({ healthy: false, body: { status: 'down' } }),
      logger: silent,
    });
    const url = `http://127.0.0.1:${server.port}`;
    try {
      const scrape = await fetch(`${url}/metrics`);
      expect(scrape.status).toBe(200);
      const text = await scrape.text();
      expect(value(text, 'devplein_containers{host="dev1",state="paused"}')).toBe(1);
      expect(text).toContain('process_cpu_user_seconds_total');
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'down' });
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });
});
