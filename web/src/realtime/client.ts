import Pusher, { type Options } from 'pusher-js';
import { readMeta } from '../api/meta.ts';

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
    enabledTransports: ['ws', 'wss'],
    activityTimeout: 120_000,
    pongTimeout: 30_000,
    unavailableTimeout: 10_000,
    channelAuthorization: { endpoint: '/broadcasting/auth', transport: 'ajax', headers },
    userAuthentication: { endpoint: '/broadcasting/user-auth', transport: 'ajax', headers },
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

let shared: Pusher | null | undefined;

/** The page's one realtime connection, made on first use (e.g. the dockers page). */
export function sharedRealtimeClient(): Pusher | null {
  if (shared === undefined) shared = createRealtimeClient();
  return shared;
}

/** Private channel of a container (DESIGN: `private-container.{name}`, event DockerEventSent). */
export function containerChannelName(containerName: string): string {
  return `private-container.${containerName}`;
}

export const DOCKER_EVENT = 'DockerEventSent';
