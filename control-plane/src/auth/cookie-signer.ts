import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Koa's cookie signer (app.keys), doing what keygrip does (HMAC-SHA1, base64url, newest key
 * first) but remembering its recent signatures. Every signed-in request verifies the session
 * cookie; keygrip computes the HMAC again each time and compares through tsscmp, which hashes
 * both sides once more: together about a tenth of the CPU of a signed-in GET /api/user. A
 * signature depends only on the key and the value, so remembering it changes no answer; the
 * comparison stays constant-time.
 */
export class CookieSigner {
  readonly #keys: readonly string[];
  /** `${key index}\n${data}` → signature; bounded, oldest first out. */
  readonly #signatures = new Map<string, string>();
  readonly #maxEntries: number;

  constructor(keys: readonly string[], maxEntries = 10_000) {
    if (keys.length === 0) throw new Error('CookieSigner needs at least one key');
    this.#keys = keys;
    this.#maxEntries = maxEntries;
  }

  sign(data: string): string {
    return this.#signature(0, data);
  }

  verify(data: string, digest: string): boolean {
    return this.index(data, digest) > -1;
  }

  /** Which key signed `data` as `digest`, or -1. */
  index(data: string, digest: string): number {
    const given = Buffer.from(digest);
    for (let index = 0; index < this.#keys.length; index += 1) {
      const expected = Buffer.from(this.#signature(index, data));
      if (expected.length === given.length && timingSafeEqual(expected, given)) return index;
    }
    return -1;
  }

  #signature(index: number, data: string): string {
    const cacheKey = `${index}\n${data}`;
    const known = this.#signatures.get(cacheKey);
    if (known !== undefined) return known;
    const signature = createHmac('sha1', this.#keys[index] as string).update(data).digest('base64url');
    this.#signatures.set(cacheKey, signature);
    if (this.#signatures.size > this.#maxEntries) {
      const oldest = this.#signatures.keys().next();
      if (!oldest.done) this.#signatures.delete(oldest.value);
    }
    return signature;
  }
}
