/**
 * A fixed number of places per user for something long-lived (a live log stream): take one
 * before starting, give it back when it ends. One process keeps the count (like the rate
 * limits); a release is idempotent, so every way a stream can end may call it.
 */
export class PerUserSlots {
  private readonly taken = new Map<number, number>();

  constructor(readonly perUser: number) {}

  /** A place for this user, or null when all of theirs are in use. Call the returned release once done. */
  take(userId: number): (() => void) | null {
    const used = this.taken.get(userId) ?? 0;
    if (used >= this.perUser) return null;
    this.taken.set(userId, used + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.taken.get(userId) ?? 1) - 1;
      if (left > 0) this.taken.set(userId, left);
      else this.taken.delete(userId);
    };
  }

  /** Places this user uses now. */
  inUse(userId: number): number {
    return this.taken.get(userId) ?? 0;
  }
}
