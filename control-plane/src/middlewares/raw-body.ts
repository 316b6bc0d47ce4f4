import type { AppContext } from '../http-context.ts';
import { HttpError } from '../errors.ts';

/** How much of a too-large body we still read (and discard) so the client gets to see the 413. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

export const tooLarge = (limit: number): HttpError =>
  new HttpError(413, `Het bestand is te groot: hoogstens ${Math.round(limit / 1024 / 1024)} MB.`, {
    errors: { file: [`Het bestand is te groot: hoogstens ${Math.round(limit / 1024 / 1024)} MB.`] },
  });

/**
 * Reads the request body as bytes, up to `limit`. A declared Content-Length over the limit or a
 * stream that grows past it gives 413; what is over the limit is never kept in memory. The app's
 * body parser only parses JSON and forms, so any other content type reaches us unread.
 */
export async function readRawBody(ctx: AppContext, limit: number): Promise<Buffer> {
  const request = ctx.req;
  if ((ctx.request as { rawBody?: unknown }).rawBody !== undefined || request.readableEnded) {
    throw new HttpError(415, 'Stuur het bestand als ruwe bytes (Content-Type application/octet-stream).', {
      errors: { file: ['Stuur het bestand als ruwe bytes (Content-Type application/octet-stream).'] },
    });
  }
  const declared = Number(ctx.get('Content-Length') || Number.NaN);
  const chunks: Buffer[] = [];
  let received = 0;
  let over = Number.isFinite(declared) && declared > limit;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) over = true;
    if (over) {
      if (received > DRAIN_LIMIT_BYTES) {
        ctx.set('Connection', 'close');
        request.destroy();
        break;
      }
      continue;
    }
    chunks.push(chunk);
  }
  if (over) {
    ctx.set('Connection', 'close');
    throw tooLarge(limit);
  }
  return Buffer.concat(chunks, received);
}
