/** What `reloadForStaleChunk` uses of the browser (a fake in tests). */
export interface StaleChunkReloadHost {
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  reload: () => void;
  now: () => number;
}

const LAST_RELOAD_KEY = 'devplein:stale-chunk-reload';
/** A second failure this soon after a reload is not a stale tab: the route's error page shows it. */
export const STALE_CHUNK_RELOAD_WINDOW_MS = 10_000;

const browser = (): StaleChunkReloadHost => ({
  storage: window.sessionStorage,
  reload: () => window.location.reload(),
  now: () => Date.now(),
});

/**
 * Pages are lazy chunks with hashed names. A tab opened before a deploy still runs the old build,
 * whose chunks the server no longer has, so opening another page fails to import its chunk.
 * Loading the page anew gets the new build and keeps the address. Reloads (and returns true) at
 * most once per STALE_CHUNK_RELOAD_WINDOW_MS per tab, so a chunk that keeps failing ends on the
 * error page instead of in a reload loop.
 */
export function reloadForStaleChunk(host: StaleChunkReloadHost = browser()): boolean {
  const lastReload = Number(host.storage.getItem(LAST_RELOAD_KEY) ?? 0);
  if (host.now() - lastReload < STALE_CHUNK_RELOAD_WINDOW_MS) return false;
  host.storage.setItem(LAST_RELOAD_KEY, String(host.now()));
  host.reload();
  return true;
}
