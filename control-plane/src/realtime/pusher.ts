import Pusher from 'pusher';

export interface RealtimeSettings {
  appId: string;
  key: string;
  secret: string;
  host: string;
  port: number;
  useTLS: boolean;
}

/** The server side of soketi (Pusher protocol): signs channel access and triggers events. */
export function createRealtime(settings: RealtimeSettings): Pusher {
  return new Pusher({
    appId: settings.appId,
    key: settings.key,
    secret: settings.secret,
    host: settings.host,
    port: String(settings.port),
    useTLS: settings.useTLS,
    timeout: 5000,
  });
}
