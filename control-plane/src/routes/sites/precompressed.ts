import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { AppContext } from '../../app-context.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli quality for bodies compressed once and sent many times: 6 is ~10 % smaller than the
 * per-request quality 4 and still takes milliseconds (9 and up cost 10–100× more CPU for 1–5 %).
 */
const KEPT_BROTLI_QUALITY = 6;

/** One answer body in each encoding a browser may ask for, made once. */
export interface PrecompressedBody {
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** Compresses `bytes` for keeping (off the event loop: zlib's thread pool). */
export async function precompress(bytes: Buffer): Promise<PrecompressedBody> {
  const [br, gz] = await Promise.all([
    brotliAsync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: KEPT_BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    gzipAsync(bytes, { level: 9 }),
  ]);
  return { identity: bytes, gzip: gz, br };
}

/**
 * Sends the encoding the client prefers among those it accepts (brotli, then gzip, else the
 * plain bytes) with its Content-Encoding; the compress middleware leaves an encoded body alone.
 */
export function sendPrecompressed(ctx: AppContext, body: PrecompressedBody): void {
  ctx.vary('Accept-Encoding');
  // Brotli whenever accepted, whatever order the client lists them in (as koa-send decides).
  const encoding = ctx.acceptsEncodings('br', 'identity') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? 'gzip' : 'identity';
  if (encoding !== 'identity') {
    ctx.set('Content-Encoding', encoding);
    ctx.body = body[encoding];
    return;
  }
  ctx.body = body.identity;
}
