import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ProxyDriver, type ProxyRoute, ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import { FakeManagedContainers } from '../../../tests/support/fakes/fake-managed-containers.ts';
import type { ManagedContainer } from '../drivers/docker/managed-containers.ts';
import { RouteKeeper } from './route-keeper.ts';

const now = new Date('2026-11-22T10:00:00Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

function container(overrides: Partial<ManagedContainer>): ManagedContainer {
  return { id: 'id', name: 'name', projectId: 1, domain: 'a.dev.test', state: 'running', upstream: '127.0.0.1:1000', createdAt: minutesAgo(60), ...overrides };
}

/** Caddy in memory: a list of routes (duplicates allowed, as in Caddy). */
class FakeProxy implements ProxyDriver {
  routes: ProxyRoute[] = [];
  down = false;
  calls: string[] = [];
  private check(): void {
    if (this.down) throw new ProxyUnavailableError('Caddy is down');
  }
  async ensureServer(): Promise<void> {
    this.check();
  }
  async upsertRoute(route: ProxyRoute): Promise<{ created: boolean }> {
    this.check();
    this.calls.push(`upsert ${route.domain}`);
    const index = this.routes.findIndex((existing) => existing.domain === route.domain);
    if (index >= 0) this.routes[index] = route;
    else this.routes.unshift(route);
    return { created: index < 0 };
  }
  async removeRoute(domain: string): Promise<boolean> {
    this.check();
    this.calls.push(`remove ${domain}`);
    const before = this.routes.length;
    this.routes = this.routes.filter((route) => route.domain !== domain);
    return this.routes.length < before;
  }
  async listRoutes(): Promise<ProxyRoute[]> {
    this.check();
    return [...this.routes];
  }
}

function keeper(containers: FakeManagedContainers, proxy: FakeProxy): RouteKeeper {
  return new RouteKeeper({ containers, proxy, logger: pino({ level: 'silent' }), cron: '0 0 1 1 *', now: () => now });
}

describe('RouteKeeper.reconcile', () => {
  it('adds missing routes, fixes wrong ones, removes stale ones and counts each', async () => {
    const containers = new FakeManagedContainers([
      container({ id: '1', domain: 'new.dev.test', upstream: '127.0.0.1:1001', projectId: 1 }),
      container({ id: '2', domain: 'moved.dev.test', upstream: '127.0.0.1:1002', projectId: 2 }),
      container({ id: '3', domain: 'same.dev.test', upstream: '127.0.0.1:1003', projectId: 3 }),
      container({ id: '4', domain: 'paused.dev.test', upstream: '127.0.0.1:1004', projectId: 4, state: 'paused' }),
      container({ id: '5', domain: 'stopped.dev.test', upstream: null, projectId: 5, state: 'exited' }),
    ]);
    const proxy = new FakeProxy();
    proxy.routes = [
      { domain: 'moved.dev.test', upstream: '127.0.0.1:9999', projectId: 2 },
      { domain: 'same.dev.test', upstream: '127.0.0.1:1003', projectId: 3 },
      { domain: 'stopped.dev.test', upstream: '127.0.0.1:1005', projectId: 5 },
      { domain: 'vanished.dev.test', upstream: '127.0.0.1:1006', projectId: 6 },
    ];

    const outcome = await keeper(containers, proxy).reconcile();

    expect(outcome).toEqual({ added: 2, updated: 1, removed: 2, unchanged: 1, removedContainers: 0 });
    expect(proxy.routes.sort((a, b) => a.domain.localeCompare(b.domain))).toEqual([
      { domain: 'moved.dev.test', upstream: '127.0.0.1:1002', projectId: 2 },
      { domain: 'new.dev.test', upstream: '127.0.0.1:1001', projectId: 1 },
      { domain: 'paused.dev.test', upstream: '127.0.0.1:1004', projectId: 4 },
      { domain: 'same.dev.test', upstream: '127.0.0.1:1003', projectId: 3 },
    ]);
    expect(proxy.calls).not.toContain('upsert same.dev.test');
  });

  it('removes managed containers stuck in created for more than two minutes, not younger ones', async () => {
    const containers = new FakeManagedContainers([
      container({ id: 'old', state: 'created', upstream: null, createdAt: minutesAgo(3) }),
      container({ id: 'young', state: 'created', upstream: null, createdAt: minutesAgo(1) }),
      container({ id: 'exited', state: 'exited', upstream: null, createdAt: minutesAgo(600) }),
    ]);
    const outcome = await keeper(containers, new FakeProxy()).reconcile();
    expect(containers.removed).toEqual(['old']);
    expect(outcome?.removedContainers).toBe(1);
  });

  it('collapses duplicate routes of one domain into one and prefers the running container of a shared domain', async () => {
    const containers = new FakeManagedContainers([
      container({ id: 'p', domain: 'shared.dev.test', state: 'paused', upstream: '127.0.0.1:2001', createdAt: minutesAgo(1) }),
      container({ id: 'r', domain: 'shared.dev.test', state: 'running', upstream: '127.0.0.1:2002', createdAt: minutesAgo(30) }),
    ]);
    const proxy = new FakeProxy();
    proxy.routes = [
      { domain: 'shared.dev.test', upstream: '127.0.0.1:2002', projectId: 1 },
      { domain: 'shared.dev.test', upstream: '127.0.0.1:2002', projectId: 1 },
    ];
    const outcome = await keeper(containers, proxy).reconcile();
    expect(proxy.routes).toEqual([{ domain: 'shared.dev.test', upstream: '127.0.0.1:2002', projectId: 1 }]);
    expect(outcome?.updated).toBe(1);
  });

  it('skips containers with an invalid domain label', async () => {
    const proxy = new FakeProxy();
    await keeper(new FakeManagedContainers([container({ domain: '*.evil.test' }), container({ domain: '' })]), proxy).reconcile();
    expect(proxy.routes).toEqual([]);
  });

  it('resolves undefined (and does not throw) while Caddy is down', async () => {
    const proxy = new FakeProxy();
    proxy.down = true;
    expect(await keeper(new FakeManagedContainers([container({})]), proxy).reconcile()).toBeUndefined();
  });

  it('shares a reconcile that is still waiting in the queue', async () => {
    const routeKeeper = keeper(new FakeManagedContainers([container({})]), new FakeProxy());
    const first = routeKeeper.reconcile();
    const second = routeKeeper.reconcile();
    expect(second).toBe(first);
    await first;
  });
});

describe('RouteKeeper events', () => {
  it('sets the route when a container starts and removes it when it stops', async () => {
    const containers = new FakeManagedContainers([]);
    const proxy = new FakeProxy();
    const routeKeeper = keeper(containers, proxy);
    routeKeeper.start();
    try {
      await routeKeeper.reconcile();
      expect(containers.watching).toBe(true);

      containers.containers = [container({ id: 'c', domain: 'live.dev.test', upstream: '127.0.0.1:3001', projectId: 9 })];
      containers.emit({ action: 'start', containerId: 'c', domain: 'live.dev.test' });
      await routeKeeper.reconcile();
      expect(proxy.routes).toEqual([{ domain: 'live.dev.test', upstream: '127.0.0.1:3001', projectId: 9 }]);

      containers.containers = [container({ id: 'c', domain: 'live.dev.test', state: 'exited', upstream: null })];
      proxy.calls = [];
      containers.emit({ action: 'die', containerId: 'c', domain: 'live.dev.test' });
      await routeKeeper.reconcile();
      expect(proxy.routes).toEqual([]);
      expect(proxy.calls[0]).toBe('remove live.dev.test');
    } finally {
      await routeKeeper.stop();
    }
  });

  it('deletes nothing while the Docker engine is away, and follows it again when it is back', async () => {
    const running = container({ id: 'c', domain: 'kept.dev.test', upstream: '127.0.0.1:3001', projectId: 9 });
    const containers = new FakeManagedContainers([running]);
    const proxy = new FakeProxy();
    const routeKeeper = new RouteKeeper({ containers, proxy, logger: pino({ level: 'silent' }), cron: '0 0 1 1 *', now: () => now, maxBackoffMs: 50 });
    routeKeeper.start();
    try {
      await routeKeeper.reconcile();
      expect(proxy.routes).toHaveLength(1);

      containers.goDown();
      expect(await routeKeeper.reconcile()).toBeUndefined();
      containers.emit({ action: 'die', containerId: 'c', domain: 'kept.dev.test' });
      await routeKeeper.reconcile();
      expect(proxy.routes).toEqual([{ domain: 'kept.dev.test', upstream: '127.0.0.1:3001', projectId: 9 }]);
      expect(proxy.calls.filter((call) => call.startsWith('remove'))).toEqual([]);

      // Back with the container on a new port (it was restarted): the reopened stream's reconcile fixes the route.
      containers.containers = [{ ...running, upstream: '127.0.0.1:3002' }];
      const watchesBefore = containers.watches;
      containers.up();
      for (let i = 0; i < 200 && (containers.watches === watchesBefore || proxy.routes[0]?.upstream !== '127.0.0.1:3002'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(containers.watches).toBeGreaterThan(watchesBefore);
      expect(proxy.routes).toEqual([{ domain: 'kept.dev.test', upstream: '127.0.0.1:3002', projectId: 9 }]);
    } finally {
      await routeKeeper.stop();
    }
  });
});

describe('RouteKeeper and the site domain', () => {
  it('routes no container whose domain label is outside the site domain, and takes such a route away', async () => {
    const containers = new FakeManagedContainers([
      container({ id: '1', domain: 'blog.dev.test', upstream: '127.0.0.1:1001', projectId: 1 }),
      // Made by an earlier agent, before CreateContainer checked the domain.
      container({ id: '2', domain: 'devplein.school.nl', upstream: '127.0.0.1:1002', projectId: 2 }),
    ]);
    const proxy = new FakeProxy();
    proxy.routes = [{ domain: 'devplein.school.nl', upstream: '127.0.0.1:1002', projectId: 2 }];
    const routeKeeper = new RouteKeeper({ containers, proxy, logger: pino({ level: 'silent' }), cron: '0 0 1 1 *', now: () => now, siteDomain: 'dev.test' });
    expect(await routeKeeper.reconcile()).toMatchObject({ added: 1, removed: 1 });
    expect(proxy.routes).toEqual([{ domain: 'blog.dev.test', upstream: '127.0.0.1:1001', projectId: 1 }]);
  });
});
