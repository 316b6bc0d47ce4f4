import { timingSafeEqual } from 'node:crypto';
import Keygrip from 'keygrip';
import { LRUCache } from 'lru-cache';

/** `name=<uuid>`: what koa's cookies signs for a session cookie (koa-session's genid is randomUUID). */
const SESSION_ID_SHAPED = /^[\w-]{1,64}=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Verified {
  digest: Buffer;
  index: number;
}

/**
 * Koa's cookie keys (app.keys): keygrip signs and verifies, and the signature of a session id it
 * has verified is remembered, so the next request of that session is not one more HMAC and
 * tsscmp's double hash (about a tenth of a signed-in GET /api/user, bench/README.md). Only
 * values shaped like `name=<uuid>` that passed keygrip are kept, at most `maxEntries` of them
 * (least recently used out): a request can neither make an entry with a made-up signature nor
 * make one large. The comparison with a remembered signature stays constant-time.
 */
export class CachedKeygrip implements Keygrip {
  readonly #keygrip: Keygrip;
  readonly #verified: LRUCache<string, Verified>;

  constructor(keys: readonly string[], maxEntries = 10_000) {
    this.#keygrip = new Keygrip(keys);
    this.#verified = new LRUCache({ max: maxEntries });
  }

  sign(data: string): string {
    return this.#keygrip.sign(data);
  }

  verify(data: string, digest: string): boolean {
    return this.index(data, digest) > -1;
  }

  index(data: string, digest: string): number {
    const known = this.#verified.get(data);
    if (known) {
      const given = Buffer.from(digest);
      if (given.length === known.digest.length && timingSafeEqual(given, known.digest)) return known.index;
    }
    const index = this.#keygrip.index(data, digest);
    if (index > -1 && SESSION_ID_SHAPED.test(data)) this.#verified.set(data, { digest: Buffer.from(digest), index });
    return index;
  }

  /** How many verified values are remembered (tests). */
  get size(): number {
    return this.#verified.size;
  }
}
