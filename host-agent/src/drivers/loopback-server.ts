/**
 * What the agent's loopback helpers share (the screenshot browser server, the git runner): each
 * runs as its own user, takes requests only with `Authorization: Bearer <secret>`, and reads a
 * small JSON body with a size cap.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `header` is `Bearer <secret>` (compared in constant time). */
export function hasSecret(header: string | undefined, secret: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(secret));
}

/** A request body over the cap of readBody. */
export class BodyTooLargeError extends Error {
  constructor() {
    super('request body too large');
    this.name = 'BodyTooLargeError';
  }
}

/** The request's body as text; BodyTooLargeError past `limit` characters. */
export async function readBody(request: http.IncomingMessage, limit: number): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > limit) throw new BodyTooLargeError();
  }
  return body;
}
