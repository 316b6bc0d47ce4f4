import type { Logger } from 'pino';
import { containerChannelName, DOCKER_EVENT } from '@devplein/contract/realtime';
import { createTriggerQueue, type RealtimeTrigger, type TriggerQueue } from '../realtime/trigger-queue.ts';

export type { RealtimeTrigger } from '../realtime/trigger-queue.ts';

/**
 * The one sender of DockerEventSent messages of a realtime server, shared by the event relays of
 * every dev server and the routes (AppServices.containerNotices), so they share what was sent
 * last. A message equal to the last one on its channel is left out: Docker reports a new
 * container's `create` and `start` a few milliseconds apart, and by the time the agent inspects
 * it after `create` it already runs, so both would reach the page as `running`. A failed send is
 * logged and forgotten, so the same message is tried again next time. Messages go out in the
 * order given, through one trigger queue (realtime/trigger-queue.ts: those given while a request
 * is in flight go together in one batch); send() enqueues at once, before its first await.
 */
export class ContainerNotices {
  private readonly lastSent = new Map<string, string>();
  private readonly queue: TriggerQueue;

  constructor(
    realtime: RealtimeTrigger,
    private readonly logger: Logger,
  ) {
    this.queue = createTriggerQueue(realtime);
  }

  /** Sends `message` on private-container.{name}, unless it is the message sent there last. Never throws. */
  async send(name: string, message: string): Promise<void> {
    if (this.lastSent.get(name) === message) return;
    this.lastSent.set(name, message);
    try {
      await this.queue.trigger(containerChannelName(name), DOCKER_EVENT, { message });
    } catch (error) {
      if (this.lastSent.get(name) === message) this.lastSent.delete(name);
      this.logger.warn({ err: error, container: name }, 'realtime trigger failed');
    }
  }
}
