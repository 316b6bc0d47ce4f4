import { PassThrough } from 'node:stream';
import type { AppContext } from '../app-context.ts';

/**
 * The response streams answering now (server-sent events, NDJSON), so a graceful shutdown can end
 * them: it would otherwise wait on log follows and pulls that never end by themselves.
 */
export class ResponseStreams {
  private readonly open = new Set<PassThrough>();

  /**
   * Answers with a stream the handler keeps writing to after the route returned. `signal`
   * aborts when the client leaves, so the agent call behind it is cancelled too.
   */
  answer(ctx: AppContext, contentType: string): { stream: PassThrough; signal: AbortSignal } {
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
    this.open.add(stream);
    stream.once('close', () => this.open.delete(stream));
    return { stream, signal: controller.signal };
  }

  /**
   * Ends every open stream (and so the agent stream behind it). Browsers see the stream end and
   * can open it again on the next process.
   */
  endAll(): void {
    for (const stream of this.open) stream.end();
  }
}

/** Writes unless the client is gone. */
export function writeLine(stream: PassThrough, text: string): void {
  if (!stream.destroyed && !stream.writableEnded) stream.write(text);
}
