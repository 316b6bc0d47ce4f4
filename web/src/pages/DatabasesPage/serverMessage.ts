import { ApiError } from '../../api/client.ts';

/**
 * The control plane's own (Dutch) message of a refused request, e.g. the 503 "De databaseserver is
 * op dit moment niet bereikbaar…" or the 501 "… nog niet ondersteund."; `fallback` for anything
 * without one (no connection, a proxy's error page).
 */
export function serverMessage(failure: unknown, fallback: string): string {
  if (!(failure instanceof ApiError)) return fallback;
  const body = failure.body;
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    const message = (body as { message: string }).message.trim();
    if (message !== '') return message;
  }
  return fallback;
}
