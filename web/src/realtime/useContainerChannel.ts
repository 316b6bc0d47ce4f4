import { useEffect, useRef, useState } from 'react';
import { containerChannelName, DOCKER_EVENT } from '@devplein/contract/realtime';
import { DEPLOY_LOG_EVENT, DEPLOY_UPDATED_EVENT, type DeployLogEvent, type DeployUpdatedEvent } from '@devplein/contract/deploys';
import { sharedRealtimeClient } from './client.ts';

/** pusher-js emits this on a channel once the server has confirmed the subscription. */
const SUBSCRIPTION_SUCCEEDED = 'pusher:subscription_succeeded';

/** A git deploy's live events on the same channel (issue 23). */
export interface DeployEventHandlers {
  /** New lines of a running deploy's log. */
  onLog?: (event: DeployLogEvent) => void;
  /** A deploy's new status (and commit, once fetched). */
  onUpdated?: (event: DeployUpdatedEvent) => void;
}

/** A DeployLog payload as the contract says, or null (a malformed one is dropped, never thrown on). */
export function readDeployLogEvent(data: unknown): DeployLogEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const { deployId, lines } = data as Partial<DeployLogEvent>;
  if (typeof deployId !== 'number' || !Array.isArray(lines)) return null;
  return { deployId, lines: lines.filter((line) => typeof line === 'object' && line !== null && typeof line.text === 'string') };
}

/** A DeployUpdated payload as the contract says, or null. */
export function readDeployUpdatedEvent(data: unknown): DeployUpdatedEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const { deploy } = data as Partial<DeployUpdatedEvent>;
  if (typeof deploy !== 'object' || deploy === null || typeof deploy.id !== 'number' || typeof deploy.status !== 'string') return null;
  return { deploy };
}

/**
 * Listens to DockerEventSent on `private-container.{name}` while the component is mounted and
 * hands each event's message to `onMessage` ('action' while someone acts, else the new State).
 * `onSubscribed` runs each time the channel's subscription succeeds (also after a reconnect):
 * what changed between the page's load and that moment was sent to nobody, so the page reloads.
 * `deploy` gets the git deploy events of the same channel (one subscription per card: pusher-js
 * shares a channel by name, so a second hook's unsubscribe would silence the first).
 * Without realtime configured it does nothing: the page then just shows what it loaded.
 */
export function useContainerChannel(
  name: string | null,
  onMessage: (message: string) => void,
  onSubscribed?: () => void,
  deploy?: DeployEventHandlers,
): void {
  const handler = useRef(onMessage);
  const subscribedHandler = useRef(onSubscribed);
  const deployHandlers = useRef(deploy);
  useEffect(() => {
    handler.current = onMessage;
    subscribedHandler.current = onSubscribed;
    deployHandlers.current = deploy;
  });

  useEffect(() => {
    if (name === null || name === '') return;
    const client = sharedRealtimeClient();
    if (client === null) return;
    const channelName = containerChannelName(name);
    const channel = client.subscribe(channelName);
    const listener = (data: unknown) => {
      const message = typeof data === 'object' && data !== null ? (data as { message?: unknown }).message : undefined;
      if (typeof message === 'string') handler.current(message);
    };
    const subscribed = () => subscribedHandler.current?.();
    const logListener = (data: unknown) => {
      const event = readDeployLogEvent(data);
      if (event !== null) deployHandlers.current?.onLog?.(event);
    };
    const updatedListener = (data: unknown) => {
      const event = readDeployUpdatedEvent(data);
      if (event !== null) deployHandlers.current?.onUpdated?.(event);
    };
    channel.bind(DOCKER_EVENT, listener);
    channel.bind(SUBSCRIPTION_SUCCEEDED, subscribed);
    channel.bind(DEPLOY_LOG_EVENT, logListener);
    channel.bind(DEPLOY_UPDATED_EVENT, updatedListener);
    return () => {
      channel.unbind(DOCKER_EVENT, listener);
      channel.unbind(SUBSCRIPTION_SUCCEEDED, subscribed);
      channel.unbind(DEPLOY_LOG_EVENT, logListener);
      channel.unbind(DEPLOY_UPDATED_EVENT, updatedListener);
      client.unsubscribe(channelName);
    };
  }, [name]);
}

/**
 * Calls `onReconnect` when the realtime connection comes back after a loss: events sent in
 * between were missed, so the page reloads its data quietly.
 */
export function useRealtimeReconnect(onReconnect: () => void): void {
  const handler = useRef(onReconnect);
  useEffect(() => {
    handler.current = onReconnect;
  });

  useEffect(() => {
    const client = sharedRealtimeClient();
    if (client === null) return;
    let wasConnected = client.connection.state === 'connected';
    const listener = ({ current }: { previous: string; current: string }) => {
      if (current === 'connected') {
        if (wasConnected) handler.current();
        wasConnected = true;
      }
    };
    // 'connected' after an earlier 'connected' means a reconnect; the first one is the start.
    client.connection.bind('state_change', listener);
    return () => {
      client.connection.unbind('state_change', listener);
    };
  }, []);
}

/** Whether live updates can arrive: no realtime configured, connected, or (re)connecting. */
export type RealtimeStatus = 'off' | 'connected' | 'down';

const statusOf = (state: string): RealtimeStatus => (state === 'connected' ? 'connected' : 'down');

/**
 * The page's realtime connection as a state: 'down' while it is not connected (also before the
 * first connect), so a page can ask the server itself meanwhile instead of showing stale data.
 */
export function useRealtimeStatus(): RealtimeStatus {
  const [status, setStatus] = useState<RealtimeStatus>(() => {
    const client = sharedRealtimeClient();
    return client === null ? 'off' : statusOf(client.connection.state);
  });
  useEffect(() => {
    const client = sharedRealtimeClient();
    if (client === null) return;
    const listener = ({ current }: { previous: string; current: string }) => setStatus(statusOf(current));
    client.connection.bind('state_change', listener);
    setStatus(statusOf(client.connection.state));
    return () => {
      client.connection.unbind('state_change', listener);
    };
  }, []);
  return status;
}
