/**
 * A bounded (LRU) map whose entries are dropped by invalidation, with a TTL only as a safety net.
 *
 * The race it closes: a request reads a row just before a write commits, the write's
 * invalidation arrives, and only then does the request store what it read. Every read therefore
 * takes a ticket (the generation at its start) before going to the database, and `store` refuses
 * the value when its key (or the whole cache) was invalidated after that ticket was taken.
 */

/** Taken before reading from the database; hand it back to `store`. */
export interface ReadTicket<K> {
  readonly key: K;
  readonly generation: number;
}

interface Entry<V> {
  value: V;
  storedAt: number;
  weight: number;
}

export interface InvalidatingCacheOptions<V = unknown> {
  /** Most entries kept; the least recently used goes first. */
  maxEntries: number;
  /** An entry older than this is not used (safety net; correctness comes from invalidation). */
  ttlMs: number;
  clock?: () => number;
  /** With `weigh`: the most total weight kept (e.g. bytes); the least recently used goes first. */
  maxWeight?: number;
  weigh?: (value: V) => number;
}

export class InvalidatingCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  /** Generation at which each recently invalidated key was last invalidated (bounded, LRU). */
  readonly #invalidatedAt = new Map<K, number>();
  /** Loads under way (`read`), each with the generation of its ticket. */
  readonly #loading = new Map<K, { generation: number; promise: Promise<V> }>();
  /** Every key not in #invalidatedAt was last invalidated at or before this generation. */
  #forgottenUpTo = 0;
  #generation = 0;
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  readonly #maxWeight: number;
  readonly #weigh: (value: V) => number;
  #weight = 0;

  constructor(options: InvalidatingCacheOptions<V>) {
    this.#maxEntries = options.maxEntries;
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock ?? Date.now;
    this.#maxWeight = options.maxWeight ?? Infinity;
    this.#weigh = options.weigh ?? (() => 0);
  }

  /** The total weight of the entries kept. */
  get weight(): number {
    return this.#weight;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value, or undefined when absent or past the TTL. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#clock() - entry.storedAt >= this.#ttlMs) {
      this.#drop(key);
      return undefined;
    }
    // Most recently used goes to the end of the insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Call before reading the value from its source. */
  ticket(key: K): ReadTicket<K> {
    return { key, generation: this.#generation };
  }

  /** Stores what was read under `ticket`, unless the key was invalidated since. Returns whether it did. */
  store(ticket: ReadTicket<K>, value: V): boolean {
    if (this.#invalidatedSince(ticket.key, ticket.generation)) return false;
    const weight = this.#weigh(value);
    // A value heavier than the whole budget would only push everything else out.
    if (weight > this.#maxWeight) return false;
    this.#drop(ticket.key);
    this.#entries.set(ticket.key, { value, storedAt: this.#clock(), weight });
    this.#weight += weight;
    while (this.#entries.size > this.#maxEntries || this.#weight > this.#maxWeight) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#drop(oldest.value);
    }
    return true;
  }

  /**
   * The cached value, else what `load` reads (stored unless the key was invalidated meanwhile).
   * Concurrent misses of a key share one load, as a class opening the same page at once would
   * otherwise read the same rows once per student; a read that starts after the key was
   * invalidated never joins a load that began before (its value could be the old one).
   */
  async read(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const running = this.#loading.get(key);
    if (running && !this.#invalidatedSince(key, running.generation)) return running.promise;
    const ticket = this.ticket(key);
    const promise = load();
    this.#loading.set(key, { generation: ticket.generation, promise });
    try {
      const value = await promise;
      this.store(ticket, value);
      return value;
    } finally {
      if (this.#loading.get(key)?.promise === promise) this.#loading.delete(key);
    }
  }

  #invalidatedSince(key: K, generation: number): boolean {
    return (this.#invalidatedAt.get(key) ?? this.#forgottenUpTo) > generation;
  }

  #drop(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  /** Drops the key; reads that started before this will not store their value. */
  invalidate(key: K): void {
    this.#generation += 1;
    this.#drop(key);
    this.#invalidatedAt.delete(key);
    this.#invalidatedAt.set(key, this.#generation);
    if (this.#invalidatedAt.size > this.#maxEntries) {
      const oldest = this.#invalidatedAt.entries().next();
      if (!oldest.done) {
        this.#invalidatedAt.delete(oldest.value[0]);
        this.#forgottenUpTo = Math.max(this.#forgottenUpTo, oldest.value[1]);
      }
    }
  }

  /** Drops everything; no read that started before this stores its value. */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#weight = 0;
    this.#invalidatedAt.clear();
    this.#forgottenUpTo = this.#generation;
  }
}
