/**
 * One realtime event end to end, without a control plane: the pusher server library triggers
 * through soketi's HTTP API, and a pusher-js client (node build) subscribed to the channel
 * receives it over the websocket.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import Pusher from 'pusher';
import type * as PusherJs from 'pusher-js';

// pusher-js is CommonJS (module.exports = the class) whose typings declare an ES default export.
// Under NodeNext TypeScript types the default import as the module object (`.default` is the
// class), while Node hands over the class itself; require + the typings' inner default agree.
export const PusherClient = createRequire(import.meta.url)('pusher-js') as typeof PusherJs.default.default;

/** A soketi and its app. */
export interface RealtimeApp {
  host: string;
  port: number;
  appId: string;
  key: string;
  secret: string;
}

/**
 * Subscribes a client to `channelName` (a private channel is signed with the app secret, as the
 * control plane's /broadcasting/auth signs it), triggers `DockerEventSent` {message: 'hallo'} on
 * it and resolves with what the client received.
 */
export async function triggerAndReceive(app: RealtimeApp, channelName = `public-test-${randomBytes(4).toString('hex')}`): Promise<unknown> {
  const server = new Pusher({ appId: app.appId, key: app.key, secret: app.secret, host: app.host, port: String(app.port), useTLS: false });
  const client = new PusherClient(app.key, {
    cluster: '',
    wsHost: app.host,
    wsPort: app.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      endpoint: '/broadcasting/auth',
      transport: 'ajax',
      customHandler: ({ socketId, channelName: name }, callback) => callback(null, server.authorizeChannel(socketId, name)),
    },
  });
  try {
    const channel = client.subscribe(channelName);
    await new Promise<void>((resolve, reject) => {
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (error: unknown) => reject(new Error(`subscription failed: ${JSON.stringify(error)}`)));
    });
    const received = new Promise<unknown>((resolve) => channel.bind('DockerEventSent', resolve));
    const response = await server.trigger(channelName, 'DockerEventSent', { message: 'hallo' });
    if (response.status !== 200) throw new Error(`soketi answered the trigger with ${response.status}`);
    return await received;
  } finally {
    client.disconnect();
  }
}
