import type { Logger } from 'pino';
import { containerChannelName, DOCKER_EVENT } from '@devplein/contract/realtime';
import { createTriggerQueue, type RealtimeTrigger } from './trigger-queue.ts';

export type { RealtimeTrigger } from './trigger-queue.ts';

/** The one sender of DockerEventSent messages, shared by the event relays and the routes. */
export interface ContainerNotices {
  /** Sends `message` on private-container.{name}, unless it is the message sent there last. Never throws. */
  send(name: string, message: string): Promise<void>;
}

const noticesByRealtime = new WeakMap<RealtimeTrigger, ContainerNotices>();

/**
 * The container channels' sender of this realtime server (one per process, so the relays of
 * every dev server and the routes share what was sent last). A message equal to the last one on
 * its channel is left out: Docker reports a new container's `create` and `start` a few
 * milliseconds apart, and by the time the agent inspects it after `create` it already runs, so
 * both would reach the page as `running`. A failed send is logged and forgotten, so the same
 * message is tried again next time. Messages go out in the order given, through one trigger
 * queue per realtime server (realtime/trigger-queue.ts: those given while a request is in
 * flight go together in one batch); send() enqueues at once, before its first await.
 */
export function containerNotices(realtime: RealtimeTrigger, logger: Logger): ContainerNotices {
  const existing = noticesByRealtime.get(realtime);
  if (existing) return existing;
  const lastSent = new Map<string, string>();
  const queue = createTriggerQueue(realtime);
  const notices: ContainerNotices = {
    async send(name, message) {
      if (lastSent.get(name) === message) return;
      lastSent.set(name, message);
      try {
        await queue.trigger(containerChannelName(name), DOCKER_EVENT, { message });
      } catch (error) {
        if (lastSent.get(name) === message) lastSent.delete(name);
        logger.warn({ err: error, container: name }, 'realtime trigger failed');
      }
    },
  };
  noticesByRealtime.set(realtime, notices);
  return notices;
}
