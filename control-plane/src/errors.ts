/** Field errors in the shape the web client shows: one list of messages per field. */
export type FieldErrors = Record<string, string[]>;

/** An error that becomes an HTTP answer with a JSON body; everything else becomes a plain 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const unauthenticated = (): HttpError => new HttpError(401, 'Je bent niet ingelogd.');
export const notVerified = (): HttpError =>
  new HttpError(403, 'Je account is nog niet geactiveerd.', { reason: 'not_verified' });
export const forbidden = (message = 'Je hebt hier geen toegang toe.'): HttpError => new HttpError(403, message);
/** Someone else's record answers exactly like a record that does not exist. */
export const notFound = (message = 'Niet gevonden.'): HttpError => new HttpError(404, message);
export const csrfMismatch = (): HttpError =>
  new HttpError(419, 'Je sessie is verlopen of het formulier is ongeldig. Herlaad de pagina en probeer het opnieuw.');
export const validationFailed = (errors: FieldErrors): HttpError =>
  new HttpError(422, 'De gegevens zijn ongeldig.', { errors });
export const serviceUnavailable = (message: string): HttpError => new HttpError(503, message);

/**
 * 405 with `Allow: POST` for a GET on a path that changes state (logout, the WordPress reset used
 * to be GETs): a link, a prefetch or a crawler must never trigger it.
 */
export function postOnly(ctx: { set(field: string, value: string): void }, message: string): never {
  ctx.set('Allow', 'POST');
  throw new HttpError(405, message);
}
