/**
 * The shared secret of the agent's loopback helpers (the screenshot browser server, the git
 * runner): each runs as its own user and takes requests only with `Authorization: Bearer <secret>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `header` is `Bearer <secret>` (compared in constant time). */
export function hasSecret(header: string | undefined, secret: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(secret));
}
