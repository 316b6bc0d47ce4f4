/**
 * Compressed answers through the real control plane (middlewares/compress.ts and the kept
 * websites answer): brotli or gzip as the client accepts, the plain bytes without
 * Accept-Encoding, never for PNG thumbnails; ETags and 304s still work; the web app's files
 * come precompressed from the build. Bytes are read raw (node:http), as they travel.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { startSiteWall, WALL_PNG, type SiteWall } from '../../support/fixtures/site-wall.ts';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (not decoded). */
  body: Buffer;
}

const webDist = path.resolve(import.meta.dirname, '../../../web/dist');

let database: SiteWall['database'];
let app: RunningControlPlane;
let admin: HttpSession;

beforeAll(async () => {
  ({ database, app } = await startSiteWall());
  admin = new HttpSession(app.url);
  await admin.signIn('admin@devplein.test');
});

afterAll(async () => {
  await app?.stop();
  await database?.destroy();
});

/** One GET with exactly these headers (fetch would add and decode encodings itself). */
function rawGet(pathname: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(pathname, app.url), { headers: { 'x-requested-with': 'XMLHttpRequest', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The body decoded by its Content-Encoding. */
function decoded(answer: RawAnswer): Buffer {
  switch (answer.headers['content-encoding']) {
    case 'br':
      return brotliDecompressSync(answer.body);
    case 'gzip':
      return gunzipSync(answer.body);
    case undefined:
      return answer.body;
    default:
      throw new Error(`unexpected Content-Encoding ${answer.headers['content-encoding']}`);
  }
}

const adminCookie = (): string =>
  ['devplein_session', 'devplein_session.sig'].map((name) => `${name}=${admin.cookie(name) ?? ''}`).join('; ');

describe('GET /api/sites compressed', () => {
  it('answers brotli, gzip or the plain JSON as the client accepts, the same JSON each time', async () => {
    const plain = await rawGet('/api/sites');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const json = plain.body.toString('utf8');
    expect(Array.isArray(JSON.parse(json))).toBe(true);

    const br = await rawGet('/api/sites', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(decoded(br).toString('utf8')).toBe(json);

    const gzip = await rawGet('/api/sites', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip).toString('utf8')).toBe(json);

    const identity = await rawGet('/api/sites', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.toString('utf8')).toBe(json);
  });

  it('keeps the ETag (weak once encoded): If-None-Match with either form answers 304', async () => {
    const plain = await rawGet('/api/sites');
    const strong = plain.headers.etag ?? '';
    expect(strong).toMatch(/^".+"$/);
    const br = await rawGet('/api/sites', { 'accept-encoding': 'br' });
    expect(br.headers.etag).toBe(`W/${strong}`);
    for (const tag of [strong, `W/${strong}`]) {
      const again = await rawGet('/api/sites', { 'accept-encoding': 'br', 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
  });
});

describe('other answers', () => {
  it('compresses a JSON answer made per request (brotli, gzip), and leaves it plain without Accept-Encoding', async () => {
    const plain = await rawGet('/api/admin/users', { cookie: adminCookie() });
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['br', 'gzip']) {
      const answer = await rawGet('/api/admin/users', { cookie: adminCookie(), 'accept-encoding': encoding });
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['content-length']).toBeUndefined(); // streamed through the compressor
      expect(JSON.parse(decoded(answer).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
    }
  });

  it('never compresses a PNG thumbnail, and its ETag and 304 stay strong', async () => {
    const answer = await rawGet('/misc/browserimg2/small/sam-portfolio_s.png', { 'accept-encoding': 'gzip, deflate, br' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(WALL_PNG)).toBe(true);
    expect(answer.headers.etag).toBe('"abc123"');
    const again = await rawGet('/misc/browserimg2/small/sam-portfolio_s.png', { 'accept-encoding': 'br', 'if-none-match': '"abc123"' });
    expect(again.status).toBe(304);
  });

  it("serves the web app's scripts precompressed from the build, and plain to a client without Accept-Encoding", async () => {
    const script = readdirSync(path.join(webDist, 'assets')).find((name) => /^index-.*\.js$/.test(name));
    expect(script, 'web/dist has no index-*.js: run npm run build:web').toBeDefined();
    const file = path.join(webDist, 'assets', script!);
    const br = await rawGet(`/assets/${script}`, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toContain('immutable');
    expect(br.body.equals(readFileSync(`${file}.br`))).toBe(true);
    const gzip = await rawGet(`/assets/${script}`, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip).equals(readFileSync(file))).toBe(true);
    const plain = await rawGet(`/assets/${script}`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(readFileSync(file))).toBe(true);
  });
});
