// @vitest-environment jsdom
import type { ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DOCKERS_RETRY_MS, STATE_UNREACHABLE, type UserDocker, useUserDockers } from './dockers.ts';

const docker = (State: string) => ({ State, Names: ['/blog'], project: { id: 1, name: 'blog' } }) as UserDocker;

/** The server's answers to GET /api/user/dockers, one per request (the last one repeats). */
function answering(states: string[]) {
  const fetch = vi.fn(async () => {
    const state = states[Math.min(fetch.mock.calls.length - 1, states.length - 1)] ?? 'running';
    return new Response(JSON.stringify([docker(state)]), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const wrapper = ({ children }: { children: ReactNode }) => (
  <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0, revalidateOnFocus: false }}>{children}</SWRConfig>
);

beforeEach(() => {
  document.head.innerHTML = '<meta name="csrf-token" content="t">';
  vi.useFakeTimers({ shouldAdvanceTime: true });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('useUserDockers', () => {
  it("asks again by itself once a refresh says 'onbereikbaar', until the dockerserver answers", async () => {
    const fetch = answering(['running', STATE_UNREACHABLE, 'exited']);
    const { result } = renderHook(() => useUserDockers(), { wrapper });
    await waitFor(() => expect(result.current.dockers?.[0]?.State).toBe('running'));
    // A live event made the page ask again, and the answer is that the host is unknown.
    await act(() => result.current.mutate());
    expect(result.current.dockers?.[0]?.State).toBe(STATE_UNREACHABLE);
    // Nothing else happens but time: the list is asked for again.
    await act(() => vi.advanceTimersByTimeAsync(DOCKERS_RETRY_MS + 100));
    await waitFor(() => expect(result.current.dockers?.[0]?.State).toBe('exited'));
    // Known again: no more asking.
    const calls = fetch.mock.calls.length;
    await act(() => vi.advanceTimersByTimeAsync(3 * DOCKERS_RETRY_MS));
    expect(fetch.mock.calls.length).toBe(calls);
  });

  it('asks again while the live updates are down, and stops when they are back', async () => {
    const fetch = answering(['running']);
    const { result, rerender } = renderHook(({ realtimeDown }) => useUserDockers({ realtimeDown }), { wrapper, initialProps: { realtimeDown: false } });
    await waitFor(() => expect(result.current.dockers?.[0]?.State).toBe('running'));
    await act(() => vi.advanceTimersByTimeAsync(2 * DOCKERS_RETRY_MS));
    expect(fetch.mock.calls.length).toBe(1);
    rerender({ realtimeDown: true });
    await act(() => vi.advanceTimersByTimeAsync(2 * DOCKERS_RETRY_MS + 100));
    expect(fetch.mock.calls.length).toBe(3);
    rerender({ realtimeDown: false });
    await act(() => vi.advanceTimersByTimeAsync(3 * DOCKERS_RETRY_MS));
    expect(fetch.mock.calls.length).toBe(3);
  });
});
