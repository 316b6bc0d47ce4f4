// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setPageLoader } from '../navigation.ts';
import { api, ApiError, CsrfError, NetworkError } from './client.ts';

interface RecordedRequest {
  url: string;
  init: RequestInit;
}

let requests: RecordedRequest[];
let pagesLoaded: string[];
let restorePageLoader: () => void;

function answerWith(status: number, body?: unknown, contentType = 'application/json') {
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    requests.push({ url, init });
    const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
    return Promise.resolve(new Response(text, { status, headers: { 'Content-Type': contentType } }));
  });
}

function setCsrfMeta(content: string | null) {
  document.head.querySelector('meta[name="csrf-token"]')?.remove();
  if (content === null) return;
  const meta = document.createElement('meta');
  meta.name = 'csrf-token';
  meta.content = content;
  document.head.append(meta);
}

beforeEach(() => {
  requests = [];
  pagesLoaded = [];
  restorePageLoader = setPageLoader((path) => pagesLoaded.push(path));
  setCsrfMeta('token-123');
  window.history.replaceState(null, '', '/dockers');
});

afterEach(() => {
  restorePageLoader();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('api client', () => {
  it('sends the spec §7 headers, same-origin credentials and JSON', async () => {
    answerWith(200, { ok: true });
    const result = await api.post<{ ok: boolean }>('/api/user/databases', { db: 'abc' });

    expect(result).toEqual({ ok: true });
    const [request] = requests;
    const headers = new Headers(request?.init.headers);
    expect(request?.url).toBe('/api/user/databases');
    expect(request?.init.method).toBe('POST');
    expect(request?.init.credentials).toBe('same-origin');
    expect(request?.init.body).toBe('{"db":"abc"}');
    expect(headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(headers.get('Accept')).toBe('application/json');
    expect(headers.get('X-CSRF-TOKEN')).toBe('token-123');
    expect(headers.get('Content-Type')).toBe('application/json');
  });

  it('sends the token on GET too, and adds query parameters', async () => {
    answerWith(200, []);
    await api.get('/api/admin/projects', { query: { all: true, skip: undefined } });
    expect(requests[0]?.url).toBe('/api/admin/projects?all=true');
    expect(new Headers(requests[0]?.init.headers).get('X-CSRF-TOKEN')).toBe('token-123');
  });

  it('logs an error when the csrf meta tag is missing, and still sends the request', async () => {
    setCsrfMeta(null);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    answerWith(200, {});
    await api.get('/api/sites');
    expect(logged).toHaveBeenCalledOnce();
    expect(new Headers(requests[0]?.init.headers).has('X-CSRF-TOKEN')).toBe(false);
  });

  it('returns undefined for an empty answer and text for a non-JSON one', async () => {
    answerWith(204);
    expect(await api.delete('/api/user/project/1')).toBeUndefined();
    answerWith(200, 'log line 1\nlog line 2', 'text/plain');
    expect(await api.get('/api/user/container/site')).toBe('log line 1\nlog line 2');
  });

  it('turns a 422 into an ApiError with field errors', async () => {
    answerWith(422, { message: 'De gegevens zijn ongeldig.', errors: { name: ['Te kort.'], domain: ['Bestaat al.'] } });
    const error = await api.post('/api/user/project', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(422);
    expect(apiError.message).toBe('De gegevens zijn ongeldig.');
    expect(apiError.fieldErrors).toEqual({ name: ['Te kort.'], domain: ['Bestaat al.'] });
    expect(apiError.fieldMessages()).toBe('Te kort.\nBestaat al.');
    expect(pagesLoaded).toEqual([]);
  });

  it('turns a 419 into a CsrfError', async () => {
    answerWith(419, { message: 'CSRF token mismatch.' });
    const error = await api.post('/api/vpn').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CsrfError);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as CsrfError).status).toBe(419);
  });

  it.each([401, 403])('sends the browser to the site root on %i', async (status) => {
    answerWith(status, { message: 'Nee.' });
    await expect(api.get('/api/user/dockers')).rejects.toBeInstanceOf(ApiError);
    expect(pagesLoaded).toEqual(['/']);
  });

  it('stays put on 401 when already at the site root', async () => {
    window.history.replaceState(null, '', '/');
    answerWith(401, { message: 'Unauthenticated.' });
    await expect(api.get('/api/sites')).rejects.toBeInstanceOf(ApiError);
    expect(pagesLoaded).toEqual([]);
  });

  it('sends a not-activated user (403 not_verified) to /not_verified', async () => {
    answerWith(403, { message: 'Account niet geactiveerd.', reason: 'not_verified' });
    const error = (await api.get('/api/user/dockers').catch((e: unknown) => e)) as ApiError;
    expect(error.reason).toBe('not_verified');
    expect(pagesLoaded).toEqual(['/not_verified']);
  });

  it('does not redirect when the caller turned it off', async () => {
    answerWith(401, { message: 'Unauthenticated.' });
    await expect(api.get('/api/user', { redirectOnAuthError: false })).rejects.toMatchObject({ status: 401 });
    expect(pagesLoaded).toEqual([]);
  });

  it('leaves other errors to the caller', async () => {
    answerWith(500, 'Internal Server Error', 'text/plain');
    const error = (await api.get('/api/sites').catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(500);
    expect(error.message).toBe('Er ging iets mis bij devplein (foutcode 500). Probeer het opnieuw.');
    expect(pagesLoaded).toEqual([]);
  });

  it('reports a failed connection as a NetworkError', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    const error = await api.get('/api/sites').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).aborted).toBe(false);
  });

  it('words a failed connection for the user without method or path', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    const error = (await api.put('/api/user/dockers/7').catch((e: unknown) => e)) as NetworkError;
    expect(error.message).toBe('Geen verbinding met devplein. Probeer het opnieuw.');
    expect(error.message).not.toMatch(/PUT|\/api\//);
    expect(error.request).toBe('PUT /api/user/dockers/7');
    expect(debug).toHaveBeenCalled();
  });
});
