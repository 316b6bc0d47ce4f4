import { PassThrough } from 'node:stream';
import type { AppContext } from '../../app-context.ts';

/** Streams answering now; ended at shutdown so the server can close (see endOpenResponseStreams). */
const openStreams = new Set<PassThrough>();

/**
 * Ends every open response stream (and so the agent stream behind it): a graceful shutdown
 * would otherwise wait on log follows and pulls that never end by themselves. Browsers see the
 * stream end and can open it again on the next process.
 */
export function endOpenResponseStreams(): void {
  for (const stream of openStreams) stream.end();
}

/**
 * Answers with a stream the handler keeps writing to after the route returned (server-sent
 * events, NDJSON). `signal` aborts when the client leaves, so the agent call behind it is
 * cancelled too.
 */
export function openResponseStream(ctx: AppContext, contentType: string): { stream: PassThrough; signal: AbortSignal } {
  const controller = new AbortController();
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set('Cache-Control', 'no-store, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = contentType;
  ctx.status = 200;
  ctx.body = stream;
  const abort = (): void => controller.abort();
  ctx.res.once('close', abort);
  stream.once('close', abort);
  openStreams.add(stream);
  stream.once('close', () => openStreams.delete(stream));
  return { stream, signal: controller.signal };
}

/** Writes unless the client is gone. */
export function writeLine(stream: PassThrough, text: string): void {
  if (!stream.destroyed && !stream.writableEnded) stream.write(text);
}
