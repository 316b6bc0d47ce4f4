import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppState } from '../http-context.ts';
import { appCspDirectives, cspHeaderValue, realtimeOrigin, securityHeaders, type SecurityHeaderSettings } from './security-headers.ts';

const settings: SecurityHeaderSettings = {
  onHttps: false,
  realtime: { host: '127.0.0.1', port: 6001, tls: false },
  inlineStylePrefix: '/dev-idp',
};

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** A tiny app with the middleware in front of a handler that answers or throws. */
async function serve(given: SecurityHeaderSettings): Promise<string> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch {
      ctx.status = 500;
      ctx.body = { message: 'fout' };
    }
  });
  app.use(securityHeaders(given));
  app.use((ctx) => {
    if (ctx.path === '/boom') throw new Error('boom');
    ctx.body = { ok: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server?.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('securityHeaders', () => {
  it('sets a strict CSP and the other headers, also on an error answer', async () => {
    const base = await serve(settings);
    for (const path of ['/', '/api/x', '/boom']) {
      const response = await fetch(`${base}${path}`);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toMatch(/style-src 'self'(;|$)/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("img-src 'self' data:");
      expect(csp).toContain("connect-src 'self' ws://127.0.0.1:6001");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'self'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(response.headers.get('strict-transport-security')).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('allows inline styles under the development provider only', async () => {
    const base = await serve(settings);
    const idp = (await fetch(`${base}/dev-idp/interaction/abc`)).headers.get('content-security-policy') ?? '';
    expect(idp).toContain("style-src 'self' 'unsafe-inline'");
    expect(idp).toContain("script-src 'self';");
    const lookalike = (await fetch(`${base}/dev-idpx`)).headers.get('content-security-policy') ?? '';
    expect(lookalike).not.toContain('unsafe-inline');
  });

  it('adds HSTS and upgrade-insecure-requests over https, and wss for a TLS realtime server', async () => {
    const base = await serve({ onHttps: true, realtime: { host: 'rt.school.nl', port: 443, tls: true } });
    const response = await fetch(base);
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('upgrade-insecure-requests');
    expect(csp).toContain('connect-src \'self\' wss://rt.school.nl:443');
  });

  it('writes the directives as one header value and brackets IPv6 realtime hosts', () => {
    expect(realtimeOrigin({ host: '::1', port: 6001, tls: false })).toBe('ws://[::1]:6001');
    const value = cspHeaderValue(appCspDirectives(settings));
    expect(value.startsWith("default-src 'self'; script-src 'self'; ")).toBe(true);
  });
});
