import { describe, expect, it } from 'vitest';
import { reloadForStaleChunk, STALE_CHUNK_RELOAD_WINDOW_MS, type StaleChunkReloadHost } from './staleChunkReload.ts';

function fakeTab() {
  const stored = new Map<string, string>();
  const tab = { clock: 1_000_000, reloads: 0 };
  const host: StaleChunkReloadHost = {
    storage: { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value) },
    reload: () => (tab.reloads += 1),
    now: () => tab.clock,
  };
  return { tab, chunkFails: () => reloadForStaleChunk(host) };
}

describe('reloadForStaleChunk', () => {
  it('reloads the page when a chunk cannot be loaded', () => {
    const { tab, chunkFails } = fakeTab();
    expect(chunkFails()).toBe(true);
    expect(tab.reloads).toBe(1);
  });

  it('does not reload again right after such a reload: the error page shows instead of a loop', () => {
    const { tab, chunkFails } = fakeTab();
    chunkFails();
    tab.clock += STALE_CHUNK_RELOAD_WINDOW_MS - 1;
    expect(chunkFails()).toBe(false);
    expect(tab.reloads).toBe(1);
  });

  it('reloads again for a later deploy', () => {
    const { tab, chunkFails } = fakeTab();
    chunkFails();
    tab.clock += STALE_CHUNK_RELOAD_WINDOW_MS;
    expect(chunkFails()).toBe(true);
    expect(tab.reloads).toBe(2);
  });
});
