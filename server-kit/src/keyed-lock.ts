/**
 * Runs work one at a time per key (e.g. per user, per project) inside this process. Used where a request
 * checks the database, calls the agent and then stores the answer: no transaction may stay open
 * across an agent call, so two requests of one user (a double click) would otherwise both pass
 * the check. The tables' unique constraints remain the last guard across processes.
 */
export class KeyedLock<Key> {
  private readonly tails = new Map<Key, Promise<unknown>>();

  async run<T>(key: Key, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
