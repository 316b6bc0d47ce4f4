import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type AgentInfoView, AgentHealthMonitor, type MonitorClock } from './health-monitor.ts';

/** A clock whose time only moves when the test says so; timers fire in order. */
class FakeClock implements MonitorClock {
  private time = Date.parse('2026-01-05T08:00:00.000Z');
  private nextId = 1;
  private timers: Array<{ id: number; at: number; callback: () => void }> = [];

  now(): Date {
    return new Date(this.time);
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.push({ id, at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Delays (from now) of the timers still pending. */
  pending(): number[] {
    return this.timers.map((timer) => timer.at - this.time);
  }

  /** Moves time forward, firing due timers and letting their async work settle. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.timers.shift();
      this.time = due.at;
      due.callback();
      await settle();
    }
    this.time = end;
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const info: AgentInfoView = {
  agentVersion: '0.1.0',
  contractVersion: '1.0.0',
  hostname: 'dev1',
  capabilities: {
    docker: { available: true, detail: 'Docker' },
    proxy: { available: false, detail: 'no Caddy' },
    mysql: { available: false, detail: 'unset' },
    chromium: { available: true, detail: 'Chromium' },
    wireguard: { available: false, detail: 'no wg' },
  },
};

const unavailable = () =>
  Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
    code: grpc.status.UNAVAILABLE,
    details: 'No connection established',
    metadata: new grpc.Metadata(),
  });

function setup() {
  const clock = new FakeClock();
  const agent = { up: true, probes: 0 };
  const monitor = new AgentHealthMonitor({
    probe: async () => {
      agent.probes += 1;
      if (!agent.up) throw unavailable();
      return info;
    },
    intervalMs: 5_000,
    backoff: { initialMs: 500, maxMs: 4_000, factor: 2, jitter: 0.2 },
    logger: pino({ level: 'silent' }),
    clock,
    random: () => 0,
  });
  return { clock, agent, monitor };
}

describe('AgentHealthMonitor', () => {
  it('is unknown until the first check, which runs at once on start()', async () => {
    const { clock, agent, monitor } = setup();
    expect(monitor.status()).toEqual({ state: 'unknown', since: '2026-01-05T08:00:00.000Z' });
    monitor.start();
    monitor.start();
    await clock.advance(0);
    expect(agent.probes).toBe(1);
    expect(monitor.status()).toEqual({ state: 'reachable', since: '2026-01-05T08:00:00.000Z', info });
    expect(clock.pending()).toEqual([5_000]);
    monitor.stop();
  });

  it('backs off exponentially while the agent is down and flips back when it returns', async () => {
    const { clock, agent, monitor } = setup();
    monitor.start();
    await clock.advance(0);

    agent.up = false;
    await clock.advance(5_000);
    const down = monitor.status();
    expect(down).toMatchObject({ state: 'unreachable', since: '2026-01-05T08:00:05.000Z', info });
    expect(down.lastError).toContain('UNAVAILABLE');

    const delays: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const [delay] = clock.pending();
      delays.push(delay ?? -1);
      await clock.advance(delay ?? 0);
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    // Still the same outage: `since` does not move while it lasts.
    expect(monitor.status().since).toBe('2026-01-05T08:00:05.000Z');
    expect(monitor.consecutiveFailures).toBe(6);

    agent.up = true;
    await clock.advance(clock.pending()[0] ?? 0);
    expect(monitor.status()).toEqual({ state: 'reachable', since: clock.now().toISOString(), info });
    expect(monitor.consecutiveFailures).toBe(0);
    expect(clock.pending()).toEqual([5_000]);
    monitor.stop();
  });

  it('stops checking after stop(), also when a check was in flight', async () => {
    const { clock, agent, monitor } = setup();
    let release: (() => void) | undefined;
    const slow = new AgentHealthMonitor({
      probe: () => new Promise<AgentInfoView>((resolve) => (release = () => resolve(info))),
      intervalMs: 1_000,
      backoff: { initialMs: 100, maxMs: 1_000 },
      logger: pino({ level: 'silent' }),
      clock,
    });
    slow.start();
    await clock.advance(0);
    slow.stop();
    release?.();
    await settle();
    expect(slow.status().state).toBe('unknown');
    expect(clock.pending()).toEqual([]);

    monitor.start();
    await clock.advance(0);
    monitor.stop();
    await clock.advance(60_000);
    expect(agent.probes).toBe(1);
  });

  it('takes the outcome of other calls into account', () => {
    const { monitor } = setup();
    monitor.recordFailure(unavailable());
    expect(monitor.status().state).toBe('unreachable');
    expect(monitor.status().info).toBeUndefined();
    monitor.recordSuccess(info);
    expect(monitor.status().state).toBe('reachable');
  });
});
