import Pusher, { type Options } from 'pusher-js';
import { readMeta } from '../api/meta.ts';
import { authenticateSocketUser, authorizeChannel } from '@devplein/contract/http/broadcasting';

/** Where the realtime server (soketi, Pusher protocol) is, as the control plane wrote it into the page. */
export interface RealtimeConfig {
  key: string;
  host: string;
  port: number;
  tls: boolean;
}

/**
 * Reads the realtime-* meta tags. Null when no app key is set (realtime not configured):
 * callers then simply do without live updates.
 */
export function readRealtimeConfig(doc: Document = document, location: Location = window.location): RealtimeConfig | null {
  const key = readMeta('realtime-key', doc);
  if (key === null) return null;
  const tlsMeta = readMeta('realtime-tls', doc);
  const tls = tlsMeta === null ? location.protocol === 'https:' : ['true', '1', 'yes', 'on'].includes(tlsMeta.toLowerCase());
  const port = Number.parseInt(readMeta('realtime-port', doc) ?? '', 10);
  return {
    key,
    host: readMeta('realtime-host', doc) ?? location.hostname,
    port: Number.isInteger(port) && port > 0 ? port : tls ? 443 : 80,
    tls,
  };
}

/** Spec §7/§9 and DESIGN: channel auth at /broadcasting/auth, user auth at /broadcasting/user-auth. */
export function realtimeOptions(config: RealtimeConfig, csrfToken: string | null): Options {
  const headers: Record<string, string> = { 'X-Requested-With': 'XMLHttpRequest' };
  if (csrfToken !== null) headers['X-CSRF-TOKEN'] = csrfToken;
  return {
    cluster: 'eu',
    wsHost: config.host,
    wsPort: config.port,
    wssPort: config.port,
    forceTLS: config.tls,
    // 'ws' speaks wss:// itself when forceTLS is set; the extra 'wss' transport only made pusher-js
    // try wss:// on a plain ws:// server during an outage, which the page's CSP refuses.
    enabledTransports: ['ws'],
    activityTimeout: 120_000,
    pongTimeout: 30_000,
    unavailableTimeout: 10_000,
    channelAuthorization: { endpoint: authorizeChannel.path, transport: 'ajax', headers },
    userAuthentication: { endpoint: authenticateSocketUser.path, transport: 'ajax', headers },
  };
}

/**
 * A new Pusher client for the page's realtime server, or null when realtime is not configured.
 * It connects at once; prefer `sharedRealtimeClient()` so the page holds one connection.
 */
export function createRealtimeClient(config: RealtimeConfig | null = readRealtimeConfig()): Pusher | null {
  if (config === null) {
    console.warn('Realtime niet ingesteld (geen realtime-key): live updates staan uit');
    return null;
  }
  const csrfToken = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? null;
  if (csrfToken === null) console.error('CSRF-token ontbreekt: geen <meta name="csrf-token"> in de pagina');
  return new Pusher(config.key, realtimeOptions(config, csrfToken));
}

/** While a lost connection is not back, start it anew this often. */
export const REALTIME_RETRY_MS = 5_000;

/** What `retryWhenLost` uses of a pusher-js client (a fake in tests). */
export interface RealtimeConnectable {
  connection: { state: string; bind(event: 'state_change', callback: (states: { previous: string; current: string }) => void): unknown };
  connect(): void;
  disconnect(): void;
}

/**
 * Once the connection has been up and is lost (the realtime server restarts, say), starts it
 * anew every `everyMs` until it is back: pusher-js's own retries wait 15, 30, then 60 s between
 * attempts, so without this live updates could stay away for a minute after the server is back.
 * Returns a function that stops it.
 */
export function retryWhenLost(client: RealtimeConnectable, everyMs = REALTIME_RETRY_MS): () => void {
  let wasConnected = client.connection.state === 'connected';
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  const stopTimer = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
  client.connection.bind('state_change', ({ current }) => {
    if (stopped) return;
    if (current === 'connected') {
      wasConnected = true;
      stopTimer();
      return;
    }
    if (!wasConnected || timer !== null) return;
    timer = setInterval(() => {
      if (client.connection.state === 'connected') return stopTimer();
      // disconnect + connect: a fresh attempt now instead of the rest of pusher-js's wait.
      client.disconnect();
      client.connect();
    }, everyMs);
  });
  return () => {
    stopped = true;
    stopTimer();
  };
}

let shared: Pusher | null | undefined;

/** The page's one realtime connection, made on first use (e.g. the dockers page); it comes back by itself when lost. */
export function sharedRealtimeClient(): Pusher | null {
  if (shared === undefined) {
    shared = createRealtimeClient();
    if (shared !== null) retryWhenLost(shared);
  }
  return shared;
}
