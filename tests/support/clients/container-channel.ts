/**
 * A container's private realtime channel as the browser sees it: a pusher-js client on soketi,
 * subscribed to `private-container.{name}` with the channel authorized by the control plane
 * (`POST /broadcasting/auth` in `session`), collecting the `DockerEventSent` messages and every
 * other event on the channel (a git deploy's DeployUpdated and DeployLog, issue 23).
 */
import { createRequire } from 'node:module';
import type * as PusherJs from 'pusher-js';
import type { HttpSession } from './http-session.ts';
import { waitFor } from './ports.ts';

// pusher-js's node build, loaded as in soketi.test.ts (its default export does not type-check under NodeNext).
const Pusher = createRequire(import.meta.url)('pusher-js') as typeof PusherJs.default.default;

export interface ContainerChannelOptions {
  /** Signed-in session of a member (or admin): it authorizes the private channel. */
  session: HttpSession;
  /** The container's (= project's) name. */
  name: string;
  /** Where soketi listens and the app key the control plane uses. */
  soketi: { key: string; host: string; port: number };
  /** How long waitFor waits for a message (default 15 s). */
  timeoutMs?: number;
}

export interface ContainerChannel {
  /** Every DockerEventSent message so far, in order of arrival. */
  readonly messages: string[];
  /** Every other event so far (name and payload), in order of arrival. */
  readonly events: Array<{ name: string; data: unknown }>;
  /** Resolves with the first event named `name` whose payload passes `matches` (now or before); rejects after the timeout. */
  waitForEvent<Data>(name: string, matches: (data: Data) => boolean, description: string): Promise<Data>;
  /** Resolves once `message` has arrived (now or before); rejects after the timeout. */
  waitFor(message: string): Promise<void>;
  /** Calls `listener` for each message from now on, as it arrives; returns a function that stops it. */
  onMessage(listener: (message: string) => void): () => void;
  /** Disconnects the client. */
  close(): void;
}

/** Connects, subscribes and resolves once the subscription succeeded (rejects when auth is refused). */
export async function subscribeContainerChannel(options: ContainerChannelOptions): Promise<ContainerChannel> {
  const { session, name, soketi } = options;
  const messages: string[] = [];
  const events: Array<{ name: string; data: unknown }> = [];
  const listeners = new Set<(message: string) => void>();
  const client = new Pusher(soketi.key, {
    cluster: 'eu',
    wsHost: soketi.host,
    wsPort: soketi.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    channelAuthorization: {
      endpoint: '/broadcasting/auth',
      transport: 'ajax',
      customHandler: (params, callback) => {
        session
          .json<{ auth: string }>('POST', '/broadcasting/auth', { socket_id: params.socketId, channel_name: params.channelName })
          .then(({ status, body }) => (status === 200 ? callback(null, body) : callback(new Error(`status ${status}`), null)))
          .catch((error: Error) => callback(error, null));
      },
    },
  });
  try {
    const channel = client.subscribe(`private-container.${name}`);
    await new Promise<void>((resolve, reject) => {
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (error: unknown) => reject(new Error(JSON.stringify(error))));
    });
    channel.bind_global((name: string, data: unknown) => {
      if (name !== 'DockerEventSent' && !name.startsWith('pusher:')) events.push({ name, data });
    });
    channel.bind('DockerEventSent', (data: { message: string }) => {
      messages.push(data.message);
      for (const listener of listeners) listener(data.message);
    });
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return {
    messages,
    events,
    async waitForEvent<Data>(name: string, matches: (data: Data) => boolean, description: string): Promise<Data> {
      const find = () => events.find((event) => event.name === name && matches(event.data as Data));
      await waitFor(() => find() !== undefined, {
        description: `${name} on ${options.name}: ${description} (got ${JSON.stringify(events.map((event) => event.name))})`,
        timeoutMs: options.timeoutMs ?? 15_000,
      });
      return find()?.data as Data;
    },
    waitFor: (message: string) =>
      waitFor(() => messages.includes(message), {
        description: `DockerEventSent '${message}' on ${name} (got ${JSON.stringify(messages)})`,
        timeoutMs: options.timeoutMs ?? 15_000,
      }),
    onMessage(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close: () => client.disconnect(),
  };
}
