// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setPageLoader } from '../../navigation.ts';
import { demoUsers } from '../../../../tests/support/web/users.ts';
import { fetchCurrentUser } from './user.ts';

let pagesLoaded: string[];
let restorePageLoader: () => void;

beforeEach(() => {
  pagesLoaded = [];
  restorePageLoader = setPageLoader((path) => pagesLoaded.push(path));
  window.history.replaceState(null, '', '/dockers');
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  restorePageLoader();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('fetchCurrentUser (start-up GET /api/user)', () => {
  it('returns the signed-in user', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(Response.json(demoUsers.student)));
    expect(await fetchCurrentUser()).toEqual(demoUsers.student);
  });

  it('treats 401 as signed out without redirecting', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(Response.json({ message: 'Unauthenticated.' }, { status: 401 })));
    expect(await fetchCurrentUser()).toBeNull();
    expect(pagesLoaded).toEqual([]);
  });

  it('treats an answer that is not a user (e.g. index.html from a static server) as signed out', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('<!doctype html>', { headers: { 'Content-Type': 'text/html' } })));
    expect(await fetchCurrentUser()).toBeNull();
  });

  it('treats a network failure as signed out', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    expect(await fetchCurrentUser()).toBeNull();
  });

  it('gives up after the timeout and treats it as signed out', async () => {
    let signal: AbortSignal | undefined;
    vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
      signal = init.signal ?? undefined;
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
      });
    });
    expect(await fetchCurrentUser(20)).toBeNull();
    expect(signal?.aborted).toBe(true);
    expect(console.warn).toHaveBeenCalledOnce();
  });
});
