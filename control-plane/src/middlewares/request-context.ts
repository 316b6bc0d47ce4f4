import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppMiddleware } from '../http-context.ts';
import { AgentError } from '../agent/agent-error.ts';
import { HttpError } from '../errors.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/database-errors.ts';

/** An agent failure no route turned into its own answer (spec: never a bare 500 for it). */
export const AGENT_FAILED_MESSAGE = 'De ontwikkelserver kon dit nu niet uitvoeren. Probeer het later opnieuw of meld het bij een docent.';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Gives every request an id (kept from X-Request-Id when sane), a child logger, one access log
 * line, and turns errors into JSON answers: HttpError as itself, an agent failure as 502, the
 * database not answering as 503 (it comes back by itself: the pool reconnects), anything else as
 * a plain 500 without a stack trace (the stack goes to the log).
 */
export function requestContext(logger: Logger): AppMiddleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.state.user = null;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.body = { message: error.message, ...error.extra };
      } else if (error instanceof AgentError) {
        // An agent failure no route maps (INTERNAL, UNKNOWN, …): the dev server failed, not us.
        ctx.state.log.error({ err: error }, 'agent call failed');
        ctx.status = 502;
        ctx.body = { message: AGENT_FAILED_MESSAGE };
      } else if (isDatabaseUnavailable(error)) {
        ctx.state.log.warn({ err: error }, 'database unavailable');
        ctx.status = 503;
        ctx.set('Retry-After', '5');
        ctx.body = { message: DATABASE_UNAVAILABLE_MESSAGE };
      } else if (isClientError(error)) {
        ctx.status = error.status;
        ctx.body = { message: error.expose ? error.message : 'Ongeldig verzoek.' };
      } else {
        ctx.state.log.error({ err: error }, 'unhandled error');
        ctx.status = 500;
        ctx.body = { message: 'Er ging iets mis aan onze kant. Probeer het later opnieuw.' };
      }
    } finally {
      ctx.state.log.debug(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

/** Errors from koa itself and its body parser (too large, bad JSON) carry a 4xx status. */
function isClientError(error: unknown): error is { status: number; message: string; expose?: boolean } {
  if (typeof error !== 'object' || error === null) return false;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
