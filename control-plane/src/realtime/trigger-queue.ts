/** One realtime event: what the pusher server library's triggerBatch takes per entry. */
export interface RealtimeEvent {
  channel: string;
  name: string;
  data: unknown;
}

/** The pusher server library's two ways of sending (one HTTP request each). */
export interface RealtimeTrigger {
  trigger(channel: string, event: string, data: unknown): Promise<unknown>;
  triggerBatch(batch: RealtimeEvent[]): Promise<unknown>;
}

/** Sends events in the order they were given; the promise settles when its request did. */
export interface TriggerQueue {
  trigger(channel: string, event: string, data: unknown): Promise<void>;
}

/** Pusher's limit of events per batch request (soketi's default maxEventBatchSize too). */
export const MAX_BATCH = 10;

interface Queued extends RealtimeEvent {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One request to the realtime server at a time, in order: an event given while none is in
 * flight goes at once, on its own; events given while one is in flight wait for it and then go
 * together in one triggerBatch (up to MAX_BATCH per request). Nothing waits on a timer, so a lone
 * event is never delayed and a burst costs a few requests instead of one per event.
 */
export function createTriggerQueue(realtime: RealtimeTrigger): TriggerQueue {
  const queued: Queued[] = [];
  let inFlight = false;

  function sendNext(): void {
    if (inFlight || queued.length === 0) return;
    const batch = queued.splice(0, MAX_BATCH);
    inFlight = true;
    let sending: Promise<unknown>;
    try {
      const [only] = batch;
      sending =
        batch.length === 1 && only
          ? realtime.trigger(only.channel, only.name, only.data)
          : realtime.triggerBatch(batch.map(({ channel, name, data }) => ({ channel, name, data })));
    } catch (error) {
      sending = Promise.reject(error);
    }
    // The next request starts before the callers of this one hear back.
    sending.then(
      () => {
        inFlight = false;
        sendNext();
        batch.forEach((event) => event.resolve());
      },
      (error: unknown) => {
        inFlight = false;
        sendNext();
        batch.forEach((event) => event.reject(error));
      },
    );
  }

  return {
    trigger(channel, name, data) {
      return new Promise<void>((resolve, reject) => {
        queued.push({ channel, name, data, resolve, reject });
        sendNext();
      });
    },
  };
}
