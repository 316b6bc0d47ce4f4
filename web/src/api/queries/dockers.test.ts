// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DOCKERS_RETRY_MS, PullError, pullImage, pullProgressTracker, resetWordpressPassword, STATE_UNREACHABLE, type PullEvent, type UserDocker, userDockersRefreshMs } from './dockers.ts';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A fetch answer whose NDJSON body arrives in the given chunks (split mid-line on purpose). */
function streamingFetch(chunks: string[], status = 200) {
  return vi.fn(async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { 'Content-Type': 'application/x-ndjson' } });
  });
}

describe('pullImage', () => {
  it('reads the NDJSON stream line by line, also across chunk borders, until done', async () => {
    const fetch = streamingFetch([
      '{"status":"Pulling fs layer","layerId":"a1"}\n{"status":"Downlo',
      'ading","layerId":"a1","current":5,"total":10}\n',
      '{"done":true}\n',
    ]);
    vi.stubGlobal('fetch', fetch);
    const events: PullEvent[] = [];
    await pullImage({ image: 'devplein-test/web:1', project_id: 7 }, (event) => events.push(event));
    expect(events).toEqual([
      { status: 'Pulling fs layer', layerId: 'a1' },
      { status: 'Downloading', layerId: 'a1', current: 5, total: 10 },
      { done: true },
    ]);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/user/dockers_images');
    expect(JSON.parse(init.body as string)).toEqual({ image: 'devplein-test/web:1', project_id: 7 });
  });

  it('rejects with the Dutch message of an error line', async () => {
    vi.stubGlobal('fetch', streamingFetch(['{"status":"Pulling"}\n{"error":"Image x:1 bestaat niet."}\n']));
    await expect(pullImage({ image: 'x:1', project_id: 7 }, () => {})).rejects.toEqual(new PullError('Image x:1 bestaat niet.'));
  });

  it('rejects with the server message of a 422', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ message: 'Ongeldig', errors: { image: ['Dit image mag je niet ophalen.'] } }), { status: 422 })),
    );
    await expect(pullImage({ image: 'x:1', project_id: 7 }, () => {})).rejects.toMatchObject({ status: 422, fieldErrors: { image: ['Dit image mag je niet ophalen.'] } });
  });
});

describe('pullProgressTracker', () => {
  it("words Docker's layer lines in Dutch and never shows Docker's English", () => {
    const track = pullProgressTracker();
    expect(track({ status: 'Pulling from devplein/php', layerId: '8.3' })).toEqual({ status: 'Image ophalen…', fraction: null });
    track({ status: 'Pulling fs layer', layerId: 'a' });
    track({ status: 'Pulling fs layer', layerId: 'b' });
    expect(track({ status: 'Pulling fs layer', layerId: 'c' }).status).toBe('Laag 3 van 3 wacht…');
    track({ status: 'Downloading', layerId: 'a', current: 10, total: 100, progress: '[>    ]' });
    expect(track({ status: 'Downloading', layerId: 'b', current: 45, total: 100 })).toEqual({ status: 'Laag 2 van 3 downloaden… 45 %', fraction: 0.1375 });
    expect(track({ status: 'Verifying Checksum', layerId: 'a' }).status).toBe('Laag 1 van 3 gedownload');
    expect(track({ status: 'Extracting', layerId: 'a', current: 50, total: 100 })).toEqual({ status: 'Laag 1 van 3 uitpakken…', fraction: 0.4875 });
    expect(track({ status: 'Pull complete', layerId: 'a' }).status).toBe('Laag 1 van 3 klaar');
    expect(track({ status: 'Already exists', layerId: 'c' }).status).toBe('Laag 3 van 3 klaar');
    expect(track({ status: 'Something new from Docker', layerId: 'b' }).status).toBe('Laag 3 van 3 klaar');
    expect(track({ status: 'Digest: sha256:abc' })).toEqual({ status: 'Image opgehaald', fraction: 1 });
  });

  it('never lets the bar run backwards when unpacking starts', () => {
    const track = pullProgressTracker();
    const downloaded = track({ status: 'Downloading', layerId: 'a', current: 100, total: 100 }).fraction ?? 0;
    const unpacking = track({ status: 'Extracting', layerId: 'a', current: 1, total: 100 }).fraction ?? 0;
    expect(unpacking).toBeGreaterThanOrEqual(downloaded);
  });
});

describe('userDockersRefreshMs', () => {
  const docker = (State: string) => ({ State }) as UserDocker;

  it('asks again while the dockerserver is unreachable or the live updates are down, and not otherwise', () => {
    expect(userDockersRefreshMs([docker('running'), docker('exited')], false)).toBe(0);
    expect(userDockersRefreshMs(undefined, false)).toBe(0);
    expect(userDockersRefreshMs([docker('running'), docker(STATE_UNREACHABLE)], false)).toBe(DOCKERS_RETRY_MS);
    // Events sent while the realtime connection is down are lost: the list must not go stale.
    expect(userDockersRefreshMs([docker('running')], true)).toBe(DOCKERS_RETRY_MS);
    expect(userDockersRefreshMs(undefined, true)).toBe(DOCKERS_RETRY_MS);
  });
});

describe('resetWordpressPassword', () => {
  it('asks with POST and the CSRF token (a GET must not reset anything) and answers the new password', async () => {
    document.head.innerHTML = '<meta name="csrf-token" content="token-wp">';
    const fetch = vi.fn(async () => new Response(JSON.stringify({ username: 'admin', password: 'Zr8-fjeQ-91' }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    expect(await resetWordpressPassword('mijn-blog')).toEqual({ username: 'admin', password: 'Zr8-fjeQ-91' });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/wordpress/passwordreset/mijn-blog');
    expect(init.method).toBe('POST');
    expect(new Headers(init.headers).get('X-CSRF-TOKEN')).toBe('token-wp');
  });
});
