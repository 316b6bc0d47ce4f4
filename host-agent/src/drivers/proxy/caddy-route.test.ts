import { describe, expect, it } from 'vitest';
import { InvalidRouteError, fromCaddyRoute, parseDomain, parseUpstream, routeId, toCaddyRoute } from './caddy-route.ts';

describe('caddy routes', () => {
  it('accepts host names, lower-cases them and refuses anything that could match more than one site', () => {
    expect(parseDomain(' Blog.Dev.School.NL ')).toBe('blog.dev.school.nl');
    expect(parseDomain('a-b.c1.nl')).toBe('a-b.c1.nl');
    for (const bad of ['', '*.nl', 'a..nl', '-a.nl', 'a-.nl', 'a.nl:80', 'a.nl/x', 'a b.nl', 'ä.nl', `${'a'.repeat(64)}.nl`, '{host}']) {
      expect(() => parseDomain(bad), bad).toThrow(InvalidRouteError);
    }
  });

  it('accepts host:port upstreams only', () => {
    for (const good of ['127.0.0.1:32768', 'blog:80', '[::1]:8080', 'my-host.internal:65535']) expect(parseUpstream(good)).toBe(good);
    for (const bad of ['127.0.0.1', ':80', 'http://a:80', 'a:0', 'a:65536', 'a:80/x', '{upstream}:80', 'a_b:80', '-a:80']) {
      expect(() => parseUpstream(bad), bad).toThrow(InvalidRouteError);
    }
  });

  it('gives every domain its own @id', () => {
    expect(routeId('a-b.nl')).not.toBe(routeId('a.b-nl'));
    expect(routeId('blog.dev.nl')).toBe('devplein-route-blog_dev_nl');
  });

  it('reads back what it writes, and ignores routes that are not the agent’s', () => {
    const route = { domain: 'blog.dev.nl', upstream: '127.0.0.1:1234', projectId: 42 };
    expect(fromCaddyRoute(JSON.parse(JSON.stringify(toCaddyRoute(route))))).toEqual(route);
    expect(fromCaddyRoute({ '@id': 'sysadmin-route', match: [{ host: ['x.nl'] }] })).toBeUndefined();
    expect(fromCaddyRoute({ match: [{ host: ['x.nl'] }] })).toBeUndefined();
  });
});
