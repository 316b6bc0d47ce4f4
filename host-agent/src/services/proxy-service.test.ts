import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InvalidRouteError } from '../drivers/proxy/caddy-route.ts';
import type { ProxyDriver, ProxyRoute } from '../drivers/proxy/proxy-driver.ts';
import { ProxyServiceImpl, RouteNotOwnedError } from './proxy-service.ts';

class RecordingProxy implements ProxyDriver {
  routes = new Map<string, ProxyRoute>();
  async ensureServer() {}
  async upsertRoute(route: ProxyRoute) {
    const created = !this.routes.has(route.domain);
    this.routes.set(route.domain, route);
    return { created };
  }
  async removeRoute(domain: string) {
    return this.routes.delete(domain);
  }
  async listRoutes() {
    return [...this.routes.values()];
  }
}

/** The agent's project containers publish their HTTP port on 127.0.0.1:40001 and :40002. */
function service(): { impl: ProxyServiceImpl; proxy: RecordingProxy } {
  const proxy = new RecordingProxy();
  const impl = new ProxyServiceImpl({
    proxy,
    logger: pino({ level: 'silent' }),
    siteDomain: 'dev.school.nl',
    ownUpstreams: async () => new Set(['127.0.0.1:40001', '127.0.0.1:40002']),
  });
  return { impl, proxy };
}

describe('ProxyService routes only what the agent would route itself', () => {
  it('routes a domain under the site domain to a port one of its containers publishes', async () => {
    const { impl, proxy } = service();
    expect(await impl.upsertRoute({ domain: 'Blog.Dev.School.nl', upstream: '127.0.0.1:40001', projectId: 7 })).toEqual({
      route: { domain: 'blog.dev.school.nl', upstream: '127.0.0.1:40001', projectId: 7 },
      created: true,
    });
    await impl.upsertRoute({ domain: 'api.blog.dev.school.nl', upstream: '127.0.0.1:40002', projectId: 7 });
    expect([...proxy.routes.keys()]).toEqual(['blog.dev.school.nl', 'api.blog.dev.school.nl']);
  });

  it.each(['devplein.school.nl', 'dev.school.nl', 'db.school.nl', 'xdev.school.nl', 'blog.dev.school.nl.evil.test', 'localhost'])(
    'refuses %s: not under the site domain (INVALID_ARGUMENT)',
    async (domain) => {
      const { impl, proxy } = service();
      await expect(impl.upsertRoute({ domain, upstream: '127.0.0.1:40001', projectId: 7 })).rejects.toThrow(InvalidRouteError);
      expect(proxy.routes.size).toBe(0);
    },
  );

  // The Docker API, the database, the control plane, another host, a port nobody of ours publishes.
  it.each(['127.0.0.1:2375', '127.0.0.1:3306', '127.0.0.1:7443', '10.0.0.5:80', '169.254.169.254:80', 'localhost:40001', '127.0.0.1:40003'])(
    'refuses upstream %s: not one of its containers (PERMISSION_DENIED)',
    async (upstream) => {
      const { impl, proxy } = service();
      await expect(impl.upsertRoute({ domain: 'blog.dev.school.nl', upstream, projectId: 7 })).rejects.toThrow(RouteNotOwnedError);
      expect(proxy.routes.size).toBe(0);
    },
  );
});
