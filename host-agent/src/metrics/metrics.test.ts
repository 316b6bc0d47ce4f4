import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CapabilityReport } from '../capabilities.ts';
import { loadConfig } from '../config.ts';
import { createAgentMetrics, methodLabel } from './metrics.ts';
import { startAgentMetricsServer } from './metrics-server.ts';

const silent = pino({ level: 'silent' });
const tls = { AGENT_TLS_CA: '/ca.pem', AGENT_TLS_CERT: '/agent.pem', AGENT_TLS_KEY: '/agent-key.pem' };
const report: CapabilityReport = {
  docker: { available: true, detail: '27.0' },
  proxy: { available: false, detail: 'ECONNREFUSED' },
  mysql: { available: false, detail: 'not configured' },
  chromium: { available: true, detail: '/usr/bin/chromium' },
  wireguard: { available: true, detail: '/usr/bin/wg' },
};

describe('methodLabel', () => {
  it('keeps service and method of a gRPC path, nothing else', () => {
    expect(methodLabel('/devplein.agent.v1.ContainerService/ListContainers')).toBe('ContainerService/ListContainers');
    expect(methodLabel('/Other/Call')).toBe('Other/Call');
    expect(methodLabel('garbage with spaces')).toBe('unknown');
  });
});

describe('AGENT_METRICS_LISTEN', () => {
  it('defaults to 127.0.0.1:9465; empty turns it off; a bad value is refused', () => {
    expect(loadConfig(tls).metricsListen).toBe('127.0.0.1:9465');
    expect(loadConfig({ ...tls, AGENT_METRICS_LISTEN: '' }).metricsListen).toBeUndefined();
    expect(() => loadConfig({ ...tls, AGENT_METRICS_LISTEN: 'nope' })).toThrow(/AGENT_METRICS_LISTEN/);
  });
});

describe('startAgentMetricsServer', () => {
  it('serves the gRPC counters, /healthz with the probe summary, 503 while shutting down', async () => {
    const metrics = createAgentMetrics();
    metrics.observeCall('/devplein.agent.v1.InfoService/GetInfo', grpc.status.OK, 0.002);
    metrics.observeCall('/devplein.agent.v1.InfoService/GetInfo', grpc.status.FAILED_PRECONDITION, 0.001);
    let shuttingDown = false;
    const server = await startAgentMetricsServer({
      listen: '127.0.0.1:0',
      metrics,
      probe: async () => report,
      probeTimeoutMs: 1_000,
      isShuttingDown: () => shuttingDown,
      agentVersion: '1.2.3',
      logger: silent,
    });
    const url = `http://127.0.0.1:${server.port}`;
    try {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toContain('devplein_agent_grpc_calls_total{method="InfoService/GetInfo",code="OK"} 1');
      expect(text).toContain('devplein_agent_grpc_calls_total{method="InfoService/GetInfo",code="FAILED_PRECONDITION"} 1');
      expect(text).toContain('devplein_agent_grpc_call_duration_seconds_count{method="InfoService/GetInfo"} 2');
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', agentVersion: '1.2.3', capabilities: { proxy: { available: false } } });
      expect((await fetch(`${url}/other`)).status).toBe(404);
      shuttingDown = true;
      expect((await fetch(`${url}/healthz`)).status).toBe(503);
    } finally {
      await server.close();
    }
  });

  it('answers /healthz with capabilities null when the probe does not finish in time', async () => {
    const server = await startAgentMetricsServer({
      listen: '127.0.0.1:0',
      metrics: createAgentMetrics(),
      probe: () => new Promise<CapabilityReport>(() => undefined),
      probeTimeoutMs: 50,
      isShuttingDown: () => false,
      agentVersion: '1.2.3',
      logger: silent,
    });
    try {
      const health = await fetch(`http://127.0.0.1:${server.port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', capabilities: null });
    } finally {
      await server.close();
    }
  });
});
