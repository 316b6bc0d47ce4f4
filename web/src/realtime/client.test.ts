// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readRealtimeConfig, realtimeOptions, retryWhenLost, type RealtimeConnectable } from './client.ts';

function documentWith(meta: Record<string, string>): Document {
  const doc = document.implementation.createHTMLDocument('t');
  for (const [name, content] of Object.entries(meta)) {
    const tag = doc.createElement('meta');
    tag.name = name;
    tag.content = content;
    doc.head.append(tag);
  }
  return doc;
}

const httpLocation = { protocol: 'http:', hostname: 'localhost' } as Location;

describe('realtime client settings', () => {
  it('reads key, host, port and tls from the meta tags', () => {
    const doc = documentWith({ 'realtime-key': 'app-key', 'realtime-host': 'ws.devplein.test', 'realtime-port': '6001', 'realtime-tls': 'true' });
    expect(readRealtimeConfig(doc, httpLocation)).toEqual({ key: 'app-key', host: 'ws.devplein.test', port: 6001, tls: true });
  });

  it('is off when the key placeholder was not filled in', () => {
    const doc = documentWith({ 'realtime-key': '__REALTIME_KEY__', 'realtime-host': '__REALTIME_HOST__' });
    expect(readRealtimeConfig(doc, httpLocation)).toBeNull();
  });

  it('falls back to the page host and a default port', () => {
    const doc = documentWith({ 'realtime-key': 'app-key', 'realtime-host': '', 'realtime-port': '__REALTIME_PORT__', 'realtime-tls': 'false' });
    expect(readRealtimeConfig(doc, httpLocation)).toEqual({ key: 'app-key', host: 'localhost', port: 80, tls: false });
  });

  it('builds the Pusher options of spec §7/§9', () => {
    const options = realtimeOptions({ key: 'k', host: 'localhost', port: 6001, tls: false }, 'csrf');
    const headers = { 'X-Requested-With': 'XMLHttpRequest', 'X-CSRF-TOKEN': 'csrf' };
    expect(options).toEqual({
      cluster: 'eu',
      wsHost: 'localhost',
      wsPort: 6001,
      wssPort: 6001,
      forceTLS: false,
      enabledTransports: ['ws'],
      activityTimeout: 120000,
      pongTimeout: 30000,
      unavailableTimeout: 10000,
      channelAuthorization: { endpoint: '/broadcasting/auth', transport: 'ajax', headers },
      userAuthentication: { endpoint: '/broadcasting/user-auth', transport: 'ajax', headers },
    });
  });
});

/** A pusher-js client stand-in: the test moves its state; connect/disconnect are counted. */
function fakeClient(initial: string) {
  const listeners: Array<(states: { previous: string; current: string }) => void> = [];
  const calls: string[] = [];
  const client: RealtimeConnectable & { move(state: string): void; calls: string[] } = {
    connection: {
      state: initial,
      bind: (_event, callback) => listeners.push(callback),
    },
    connect: () => calls.push('connect'),
    disconnect: () => calls.push('disconnect'),
    move(state) {
      const previous = client.connection.state;
      client.connection.state = state;
      for (const listener of listeners) listener({ previous, current: state });
    },
    calls,
  };
  return client;
}

describe('retryWhenLost', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts a lost connection anew every few seconds until it is back, then stops', () => {
    vi.useFakeTimers();
    const client = fakeClient('connecting');
    const stop = retryWhenLost(client, 5_000);
    // Never connected yet: the first connect is pusher-js's own business.
    vi.advanceTimersByTime(20_000);
    expect(client.calls).toEqual([]);

    client.move('connected');
    client.move('connecting');
    vi.advanceTimersByTime(4_999);
    expect(client.calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(client.calls).toEqual(['disconnect', 'connect']);
    client.move('unavailable');
    vi.advanceTimersByTime(5_000);
    expect(client.calls).toHaveLength(4);

    client.move('connected');
    vi.advanceTimersByTime(30_000);
    expect(client.calls).toHaveLength(4);
    stop();
  });
});
