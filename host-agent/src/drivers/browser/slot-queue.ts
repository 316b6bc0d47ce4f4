/**
 * A bounded number of slots with a first-come, first-served queue in front: at most `size`
 * captures hold a browser page at once; the rest wait their turn. A waiter whose signal aborts
 * leaves the queue without ever taking a slot.
 */
export class SlotQueue {
  private busy = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a positive integer');
  }

  /** Slots in use. */
  get inUse(): number {
    return this.busy;
  }

  /** Callers waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Waits for a free slot; the returned function gives it back (calling it twice is harmless). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.busy < this.size) {
      this.busy += 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter: `busy` stays the same.
      if (next) next.grant();
      else this.busy -= 1;
    };
  }
}
