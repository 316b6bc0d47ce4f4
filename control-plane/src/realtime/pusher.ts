import http from 'node:http';
import https from 'node:https';
import Pusher from 'pusher';

export interface RealtimeSettings {
  appId: string;
  key: string;
  secret: string;
  host: string;
  port: number;
  useTLS: boolean;
}

/**
 * The server side of soketi (Pusher protocol): signs channel access and triggers events. Its
 * requests go over kept-alive connections (its own agent, not whatever the process's default
 * agent is): a new TCP (and TLS) connection per trigger would add to every live event.
 */
export function createRealtime(settings: RealtimeSettings): Pusher {
  // An idle connection is closed after 5 s (as Node's default agent does), before soketi's own
  // idle timeout (10 s) can close it under a request that reuses it.
  const agentOptions = { keepAlive: true, timeout: 5_000 };
  return new Pusher({
    appId: settings.appId,
    key: settings.key,
    secret: settings.secret,
    host: settings.host,
    port: String(settings.port),
    useTLS: settings.useTLS,
    timeout: 5000,
    agent: settings.useTLS ? new https.Agent(agentOptions) : new http.Agent(agentOptions),
  });
}
