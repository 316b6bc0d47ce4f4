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

  it('treats a network failure that lasts the whole time budget as signed out', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', () => {
      calls += 1;
      return Promise.reject(new TypeError('Failed to fetch'));
    });
    expect(await fetchCurrentUser(300)).toBeNull();
    expect(calls).toBeGreaterThan(1);
  });

  it('tries again after a network failure within the time budget (a laptop changing networks is not a sign-out)', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', () => {
      calls += 1;
      // Chromium's net::ERR_NETWORK_CHANGED reaches fetch as a TypeError, like being offline.
      return calls === 1 ? Promise.reject(new TypeError('Failed to fetch')) : Promise.resolve(Response.json(demoUsers.student));
    });
    expect(await fetchCurrentUser(2000)).toEqual(demoUsers.student);
    expect(calls).toBe(2);
  });

  it('does not try again after an HTTP answer: a 500 is signed out at once', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', () => {
      calls += 1;
      return Promise.resolve(Response.json({ message: 'kapot' }, { status: 500 }));
    });
    expect(await fetchCurrentUser(2000)).toBeNull();
    expect(calls).toBe(1);
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
