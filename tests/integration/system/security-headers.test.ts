/**
 * Security headers on every kind of answer of the real control plane (API, single-page app,
 * static files, /misc images, sign-in redirects, errors, the development identity provider), and
 * the request size limits of the body parser.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DOCENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { snapshotWebDist } from '../../support/stacks/e2e-app.ts';
import { HttpSession } from '../../support/clients/http-session.ts';

let stack: HostingStack;
let webDist: string;

beforeAll(async () => {
  webDist = await snapshotWebDist();
  stack = await startHostingStack({ env: { WEB_DIST: webDist } });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  if (webDist) rmSync(webDist, { recursive: true, force: true });
});

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

function expectStrictHeaders(response: Response, what: string, options: { inlineStyles?: boolean } = {}): void {
  const csp = directives(response.headers.get('content-security-policy'));
  expect(csp.get('default-src'), what).toEqual(["'self'"]);
  expect(csp.get('script-src'), what).toEqual(["'self'"]);
  expect(csp.get('style-src'), what).toEqual(options.inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"]);
  expect(csp.get('img-src'), what).toEqual(["'self'", 'data:']);
  expect(csp.get('connect-src')?.[0], what).toBe("'self'");
  expect(csp.get('connect-src')?.[1], what).toMatch(/^ws:\/\/[^/]+:\d+$/);
  expect(csp.get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(csp.get('base-uri'), what).toEqual(["'self'"]);
  expect(csp.get('form-action'), what).toEqual(["'self'"]);
  expect(csp.get('object-src'), what).toEqual(["'none'"]);
  expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(response.headers.get('x-frame-options'), what).toBe('DENY');
  expect(response.headers.get('referrer-policy'), what).toBe('same-origin');
  expect(response.headers.get('cross-origin-opener-policy'), what).toBe('same-origin');
  // APP_URL is http here: no HSTS (the unit test covers https).
  expect(response.headers.get('strict-transport-security'), what).toBeNull();
  expect(response.headers.get('x-powered-by'), what).toBeNull();
}

describe('security headers', { timeout: 60_000 }, () => {
  it('are on API answers, pages, static files, /misc images, redirects and errors', async () => {
    const anonymous = await stack.anonymous();
    const admin = await stack.as(ADMIN);
    const index = await (await anonymous.raw('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    const stylesheet = /href="(\/assets\/[^"]+\.css)"/.exec(index)?.[1];
    expect(script).toBeDefined();
    const cases: Array<[string, () => Promise<Response>, number]> = [
      ['the home page', () => anonymous.raw('/'), 200],
      ['a deep page path', () => admin.raw('/admin/users'), 200],
      ['a script', () => anonymous.raw(script ?? '/'), 200],
      ['a stylesheet', () => anonymous.raw(stylesheet ?? '/'), 200],
      ['the favicon', () => anonymous.raw('/favicon.svg'), 200],
      ['an API answer', () => admin.api('GET', '/api/user'), 200],
      ['an API 401', () => anonymous.api('GET', '/api/user'), 401],
      ['an API 404', () => admin.api('GET', '/api/bestaat-niet'), 404],
      ['an API 419', () => admin.api('POST', '/api/user/ssh_keys', {}, { 'X-CSRF-TOKEN': '' }), 419],
      ['a missing thumbnail', () => anonymous.raw('/misc/browserimg2/small/bestaat-niet_s.png'), 404],
      ['the sign-in redirect', () => new HttpSession(stack.app.url).raw('/auth/school'), 302],
      ['the health check', () => anonymous.raw('/healthz'), 200],
    ];
    for (const [what, send, status] of cases) {
      const response = await send();
      await response.body?.cancel();
      expect(response.status, what).toBe(status);
      expectStrictHeaders(response, what);
    }
  });

  it('gives the development identity provider inline styles only, and its sign-in flow still works', async () => {
    const session = new HttpSession(stack.app.url);
    // Without login_hint the provider shows its account chooser: an inline <style>, a same-origin form.
    let response = await session.raw('/auth/school');
    for (let hop = 0; hop < 5 && response.status >= 300 && response.status < 400; hop++) {
      const location = response.headers.get('location') ?? '';
      if (location.includes('/dev-idp/interaction/')) break;
      response = await session.raw(new URL(location, stack.app.url).toString());
    }
    const interaction = response.headers.get('location') ?? '';
    expect(interaction).toContain('/dev-idp/interaction/');
    const page = await session.raw(new URL(interaction, stack.app.url).toString());
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<style>');
    expectStrictHeaders(page, 'the development sign-in page', { inlineStyles: true });
    // The provider's discovery document: same relaxed policy under /dev-idp, still no inline scripts.
    const discovery = await session.raw('/dev-idp/.well-known/openid-configuration');
    await discovery.body?.cancel();
    expectStrictHeaders(discovery, 'the provider discovery', { inlineStyles: true });
    // And the complete sign-in still ends signed in.
    const signedIn = new HttpSession(stack.app.url);
    await signedIn.signIn(DOCENT);
    expect((await signedIn.api('GET', '/api/user')).status).toBe(200);
  });
});

describe('request size limits', { timeout: 60_000 }, () => {
  it('refuses a JSON body over 256 kB with a Dutch 413, and unreadable JSON with 400, before the route runs', async () => {
    const admin = await stack.as(ADMIN);
    const before = await stack.database.knex('teams').count({ n: '*' });
    const big = await admin.json<{ message: string }>('POST', '/api/admin/teams', { name: 'x'.repeat(300 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.message).toBe('Het verzoek is te groot.');
    const token = decodeURIComponent(admin.cookie('XSRF-TOKEN') ?? '');
    const broken = await admin.raw('/api/admin/teams', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-TOKEN': token, 'X-Requested-With': 'XMLHttpRequest' },
      body: '{"name": ',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { message: string }).message).toMatch(/^Het verzoek kon niet gelezen worden/);
    const form = await admin.raw('/api/admin/teams', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-TOKEN': token },
      body: `name=${'y'.repeat(70 * 1024)}`,
    });
    expect(form.status).toBe(413);
    expect(await stack.database.knex('teams').count({ n: '*' })).toEqual(before);
  });

  it('keeps course file uploads to raw bytes of an allowed type and at most 10 MB', async () => {
    const admin = await stack.as(ADMIN);
    const { knex } = stack.database;
    const category = await knex('level_categories').first<{ id: number }>('id');
    const [content] = await knex('level_contents')
      .insert({ title: 'Limieten', title_for_teachers: 'Limieten (docent)', level_category_id: category.id })
      .returning<{ id: number }[]>('id');
    const [course] = await knex('courses').insert({ level_content_id: content?.id, title: 'Cursus', position: 0 }).returning<{ id: number }[]>('id');
    const token = decodeURIComponent(admin.cookie('XSRF-TOKEN') ?? '');
    const upload = (filename: string, bytes: Uint8Array, type = 'application/octet-stream') =>
      admin.raw(`/api/level/courses/${course?.id}/files?${new URLSearchParams({ title: 'Bestand', filename })}`, {
        method: 'POST',
        headers: { 'Content-Type': type, 'X-CSRF-TOKEN': token, Accept: 'application/json' },
        body: new Uint8Array(bytes),
      });
    expect((await upload('script.html', new Uint8Array([60, 104]))).status).toBe(422);
    // A body the JSON parser has read is not the file's raw bytes: refused, not stored wrong.
    expect((await upload('a.pdf', new TextEncoder().encode('{}'), 'application/json')).status).toBe(415);
    expect((await upload('a.pdf', new Uint8Array(10 * 1024 * 1024 + 1))).status).toBe(413);
    expect((await upload('a.pdf', new Uint8Array([37, 80, 68, 70]))).status).toBe(201);
  });
});
