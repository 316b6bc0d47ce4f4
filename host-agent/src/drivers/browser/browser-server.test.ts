import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBrowserServer, startBrowserServer } from './browser-server.ts';
import { hasSecret } from '../loopback-server.ts';
import { ip6tablesBinary, proxyTarget } from './browser-firewall.ts';

describe('browser server: who may ask, and what', () => {
  let server: RunningBrowserServer;
  const secret = 'a'.repeat(32);
  beforeAll(async () => {
    // A Chromium path that does not exist: nothing here may get as far as starting one.
    server = await startBrowserServer({ host: '127.0.0.1', port: 0, secret, chromiumPath: '/nonexistent/chromium', maxBrowsers: 1, chromiumEnv: {}, logger: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await server.close();
  });
  const launch = (body: unknown, token = secret) =>
    fetch(`http://127.0.0.1:${server.port}/launch`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

  it('compares the bearer token with the secret', () => {
    expect(hasSecret(`Bearer ${secret}`, secret)).toBe(true);
    expect(hasSecret(`Bearer ${secret}x`, secret)).toBe(false);
    expect(hasSecret(secret, secret)).toBe(false);
    expect(hasSecret(undefined, secret)).toBe(false);
  });

  it('answers 401 without the secret and 404 for anything but POST /launch', async () => {
    expect((await launch({ args: [] }, 'wrong')).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${server.port}/launch`, { method: 'POST', body: '{"args":[]}' })).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${server.port}/`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(404);
  });

  it.each(['--no-sandbox', '--remote-debugging-port=9222', '--user-data-dir=/tmp/x', '--renderer-cmd-prefix=gdb', '--single-process', 'http://example.org/'])(
    'refuses the argument %s with 400, before any Chromium starts',
    async (arg) => {
      const answer = await launch({ args: ['--headless', arg] });
      expect(answer.status).toBe(400);
      expect(server.browsers()).toBe(0);
    },
  );

  it('says why a Chromium did not start (500), and starts none', async () => {
    const answer = await launch({ args: ['--headless'] });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toMatch(/Chromium did not start/);
    expect(server.browsers()).toBe(0);
  });
});

describe('browser firewall: the proxy target', () => {
  it('takes an IPv4 or IPv6 proxy address, and localhost as 127.0.0.1', () => {
    expect(proxyTarget('127.0.0.1:8088')).toEqual({ address: '127.0.0.1', family: 4, port: 8088 });
    expect(proxyTarget('localhost:80')).toEqual({ address: '127.0.0.1', family: 4, port: 80 });
    expect(proxyTarget('[::1]:80')).toEqual({ address: '::1', family: 6, port: 80 });
    expect(() => proxyTarget('caddy.internal:80')).toThrow(/IP address/);
  });

  it('finds ip6tables next to iptables', () => {
    expect(ip6tablesBinary('/usr/sbin/iptables')).toBe('/usr/sbin/ip6tables');
    expect(ip6tablesBinary('iptables-nft')).toBe('ip6tables-nft');
  });
});
