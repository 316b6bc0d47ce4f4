/**
 * What a browser's HTTP cache does with an image for one session, as far as the load bench needs
 * it: a fresh copy (Cache-Control max-age not yet passed) is used without a request; a stale one
 * is revalidated with If-None-Match (a 304 keeps it). No-store and no-cache answers are never
 * reused without asking.
 */
interface CachedImage {
  etag: string | null;
  freshUntil: number;
}

export class BrowserImageCache {
  private readonly entries = new Map<string, CachedImage>();

  /** True when a fresh copy may be used without asking the server. */
  isFresh(url: string, now = Date.now()): boolean {
    const entry = this.entries.get(url);
    return entry !== undefined && entry.freshUntil > now;
  }

  /** The validator to send with a request for `url`, when a stale copy is kept. */
  revalidationHeaders(url: string): Record<string, string> {
    const etag = this.entries.get(url)?.etag;
    return etag ? { 'If-None-Match': etag } : {};
  }

  /** Keeps (200) or refreshes (304) the copy of `url` according to the answer's headers. */
  store(url: string, response: Response, now = Date.now()): void {
    if (response.status !== 200 && response.status !== 304) return;
    const cacheControl = response.headers.get('cache-control') ?? '';
    if (/no-store/i.test(cacheControl)) {
      this.entries.delete(url);
      return;
    }
    const maxAge = /no-cache/i.test(cacheControl) ? 0 : Number(/max-age=(\d+)/i.exec(cacheControl)?.[1] ?? 0);
    const etag = response.headers.get('etag') ?? this.entries.get(url)?.etag ?? null;
    this.entries.set(url, { etag, freshUntil: now + maxAge * 1000 });
  }
}
