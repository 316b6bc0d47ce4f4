import type { LevelStatus } from '@devplein/contract/levels';
import type { CurrentUser } from '../queries/current-user.ts';
import type { SessionData } from './session-store.ts';
import type { CategoryRow } from '../queries/levels.ts';
import type { StoredThumbnail } from '../queries/thumbnails.ts';
import { InvalidatingCache } from './invalidating-cache.ts';

/**
 * What every signed-in request needs, kept in memory between requests: the session row, the
 * CurrentUser and what GET /api/user adds (the user's level statuses, the categories).
 *
 * Correctness comes from invalidation, not from the TTL: the database itself announces every
 * write to these tables (triggers of migration 0011 NOTIFY on channel IDENTITY_CHANNEL inside the
 * writing transaction), identity-notices.ts hands each notice to `applyNotice`, and the methods
 * below drop what changed. While no notices arrive (listener not connected) nothing is cached.
 * See docs/design/signed-in-request-path.md.
 */

/** The NOTIFY channel of migration 0011's triggers. */
export const IDENTITY_CHANNEL = 'devplein_identity';

/** A session row as read: its data and when it ends. */
export interface CachedSession {
  data: SessionData;
  expiresAt: number;
}

export interface LevelStatusRow {
  level_category_id: number;
  number: number;
  status: LevelStatus;
}

const MAX_ENTRIES = 20_000;
/** Safety net only: a notice that never came is forgotten after this long. */
const TTL_MS = 5 * 60_000;
const ALL = 'all';
/**
 * Thumbnail bytes kept at most (least recently asked first out). The wall's first screen is the
 * same for every visitor, so a few MB serve a class that opens /websites at once from memory
 * (~320×200 PNGs of 5–60 KB); the rest are read from PostgreSQL as before.
 */
const THUMBNAIL_BYTES = 8 * 1024 * 1024;

export class IdentityCache {
  readonly #sessions: InvalidatingCache<string, CachedSession | null>;
  readonly #users: InvalidatingCache<number, CurrentUser | null>;
  readonly #levelStatuses: InvalidatingCache<number, readonly LevelStatusRow[]>;
  readonly #categories: InvalidatingCache<typeof ALL, readonly CategoryRow[]>;
  /** The websites wall as served (the same for every viewer): one entry. */
  readonly #siteWall: InvalidatingCache<typeof ALL, unknown>;
  /** Thumbnails by project name, with the project's wall flags (null: none stored), bounded by bytes. */
  readonly #thumbnails: InvalidatingCache<string, StoredThumbnail | null>;
  #listening = false;
  /** Called on migration 0014's `a` notice (a write to agent_links, by any process): the fleet reloads. */
  readonly #agentLinkListeners = new Set<() => void>();

  constructor(clock: () => number = Date.now) {
    const options = { maxEntries: MAX_ENTRIES, ttlMs: TTL_MS, clock };
    this.#sessions = new InvalidatingCache(options);
    this.#users = new InvalidatingCache(options);
    this.#levelStatuses = new InvalidatingCache(options);
    this.#categories = new InvalidatingCache(options);
    this.#siteWall = new InvalidatingCache(options);
    this.#thumbnails = new InvalidatingCache<string, StoredThumbnail | null>({
      ...options,
      maxWeight: THUMBNAIL_BYTES,
      // The bytes plus a little for the entry itself.
      weigh: (thumbnail) => 256 + (thumbnail?.png?.length ?? 0),
    });
  }

  /** Whether notices arrive, so cached values can be trusted. */
  get listening(): boolean {
    return this.#listening;
  }

  /**
   * The notice source calls this when it starts or stops listening. Either way everything goes:
   * notices may have been missed while it was not listening.
   */
  setListening(listening: boolean): void {
    this.clear();
    this.#listening = listening;
  }

  session(id: string, load: () => Promise<CachedSession | null>): Promise<CachedSession | null> {
    return this.#read(this.#sessions, id, load);
  }

  user(userId: number, load: () => Promise<CurrentUser | null>): Promise<CurrentUser | null> {
    return this.#read(this.#users, userId, async () => {
      const user = await load();
      return user && deepFreeze(user);
    });
  }

  levelStatuses(userId: number, load: () => Promise<LevelStatusRow[]>): Promise<readonly LevelStatusRow[]> {
    return this.#read(this.#levelStatuses, userId, async () => deepFreeze(await load()));
  }

  categories(load: () => Promise<CategoryRow[]>): Promise<readonly CategoryRow[]> {
    return this.#read(this.#categories, ALL, async () => deepFreeze(await load()));
  }

  /**
   * The websites wall, loaded by `load` when absent. Like every read here, concurrent misses share
   * one load, and a read after a change never joins a load that began before it.
   */
  siteWall<T>(load: () => Promise<T>): Promise<T> {
    return this.#read(this.#siteWall, ALL, load) as Promise<T>;
  }

  /** A project's thumbnail with its wall flags, loaded by `load` when absent. */
  thumbnail(name: string, load: () => Promise<StoredThumbnail | null>): Promise<StoredThumbnail | null> {
    return this.#read(this.#thumbnails, name, load);
  }

  /** A project, its members or its thumbnail changed: the wall is built anew. */
  sitesChanged(): void {
    this.#siteWall.clear();
  }

  /** A project (its name, flags) or a thumbnail changed: which one is not said, so all go. */
  thumbnailsChanged(): void {
    this.#thumbnails.clear();
  }

  /** The user's row, group or teams changed (flags, disable, delete, membership, name). */
  userChanged(userId: number): void {
    this.#users.invalidate(userId);
  }

  /** A group or team itself changed (cohort, name): every member's CurrentUser may show it. */
  allUsersChanged(): void {
    this.#users.clear();
  }

  /** A session row was written or deleted (sign-in, sign-out, last-seen refresh, disable). */
  sessionEnded(sessionId: string): void {
    this.#sessions.invalidate(sessionId);
  }

  /** One user's per-student levels changed (status, added, removed). */
  levelsChanged(userId: number): void {
    this.#levelStatuses.invalidate(userId);
  }

  /** The level categories changed. */
  categoriesChanged(): void {
    this.#categories.clear();
  }

  clear(): void {
    this.#sessions.clear();
    this.#users.clear();
    this.#levelStatuses.clear();
    this.#categories.clear();
    this.#siteWall.clear();
    this.#thumbnails.clear();
  }

  /** One notice of migrations 0011 and 0012's triggers: `u:{id}`, `u:*`, `s:{id}`, `l:{userId}`, `c`, `w`, `*`. */
  /** Registers a listener of agent link changes (agent_links rows); returns its removal. */
  onAgentLinksChanged(listener: () => void): () => void {
    this.#agentLinkListeners.add(listener);
    return () => this.#agentLinkListeners.delete(listener);
  }

  /** An agent link was added, joined or revoked (by this or another process). */
  agentLinksChanged(): void {
    for (const listener of this.#agentLinkListeners) listener();
  }

  applyNotice(payload: string): void {
    const colon = payload.indexOf(':');
    const kind = colon === -1 ? payload : payload.slice(0, colon);
    const key = colon === -1 ? '' : payload.slice(colon + 1);
    if (kind === 'u') {
      if (key === '*') this.allUsersChanged();
      else this.userChanged(Number(key));
      // The wall shows members' names and cohorts.
      this.sitesChanged();
    } else if (kind === 'w') {
      this.sitesChanged();
      this.thumbnailsChanged();
    } else if (kind === 's') this.sessionEnded(key);
    else if (kind === 'l') this.levelsChanged(Number(key));
    else if (kind === 'c') this.categoriesChanged();
    else if (kind === 'a') this.agentLinksChanged();
    // '*' (a truncate) and anything this version does not know: drop everything.
    else this.clear();
  }

  #read<K, V>(cache: InvalidatingCache<K, V>, key: K, load: () => Promise<V>): Promise<V> {
    if (!this.#listening) return load();
    return cache.read(key, load);
  }
}

/** Cached values are shared between requests: frozen, so no request can change another's. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
