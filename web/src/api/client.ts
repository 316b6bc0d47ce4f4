import { goToPage } from '../navigation.ts';

/** Field name -> messages, as the control plane sends them in a 422 `{message, errors}` body. */
export type FieldErrors = Record<string, string[]>;

/** An HTTP answer outside 2xx. `fieldErrors` is filled for 422 validation errors, empty otherwise. */
export class ApiError extends Error {
  readonly status: number;
  readonly fieldErrors: FieldErrors;
  /** Machine-readable reason the server gave, e.g. 'not_verified' on a 403. */
  readonly reason: string | undefined;
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.fieldErrors = readFieldErrors(body);
    this.reason = readStringField(body, 'reason');
  }

  /** All field messages, one per line: what the spec shows in an alert when a form is refused. */
  fieldMessages(): string {
    return Object.values(this.fieldErrors).flat().join('\n');
  }
}

/** 419: the session's CSRF token did not match (usually an expired session; a reload fixes it). */
export class CsrfError extends ApiError {
  constructor(status: number, message: string, body: unknown) {
    super(status, message, body);
    this.name = 'CsrfError';
  }
}

/** What a user reads when a call got no answer at all: no method, no path (those go to the console). */
export const NO_CONNECTION_MESSAGE = 'Geen verbinding met devplein. Probeer het opnieuw.';

/** What a user reads for an error answer without a message of the server's own (e.g. a proxy's 502). */
export function statusMessage(status: number): string {
  return `Er ging iets mis bij devplein (foutcode ${status}). Probeer het opnieuw.`;
}

/** What a user reads when a call was broken off (by the page itself or a timeout). */
export const ABORTED_MESSAGE = 'De vraag aan devplein is afgebroken. Probeer het opnieuw.';

/**
 * No HTTP answer at all: offline, server down, or aborted (by the caller or by a timeout). The
 * message is the Dutch text a page may show as is; `request` ("PUT /api/…") is for debugging only.
 */
export class NetworkError extends Error {
  readonly aborted: boolean;
  readonly request: string | undefined;

  constructor(aborted: boolean, options?: { cause?: unknown; request?: string }) {
    super(aborted ? ABORTED_MESSAGE : NO_CONNECTION_MESSAGE, options);
    this.name = 'NetworkError';
    this.aborted = aborted;
    this.request = options?.request;
  }
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  /** Sent as JSON, or as-is when it is FormData (file uploads). */
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /**
   * Spec §8: a 401/403 sends the browser to the site root (403 `not_verified` to /not_verified).
   * The start-up GET /api/user turns this off: there a 401 only means "signed out".
   */
  redirectOnAuthError?: boolean;
}

export const NOT_VERIFIED_PATH = '/not_verified';

/**
 * The one way the web app talks to the control plane: same-origin cookies, the CSRF token of the
 * page's meta tag on every request, `X-Requested-With` so the server answers JSON, typed errors.
 */
export async function apiRequest<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = new Headers({ Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' });
  const csrfToken = readCsrfToken();
  if (csrfToken !== null) headers.set('X-CSRF-TOKEN', csrfToken);

  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    const aborted = options.signal?.aborted ?? false;
    if (!aborted) console.debug(`${method} ${path}: geen antwoord`, error);
    throw new NetworkError(aborted, { cause: error, request: `${method} ${path}` });
  }

  const payload = await readBody(response);
  if (response.ok) return payload as T;

  // The server's own (Dutch) message; never the English status text of HTTP.
  const message = readStringField(payload, 'message') ?? statusMessage(response.status);
  const error =
    response.status === 419 ? new CsrfError(response.status, message, payload) : new ApiError(response.status, message, payload);
  if (options.redirectOnAuthError !== false) redirectOnAuthError(error);
  throw error;
}

/** Shorthands; each returns the parsed JSON body (or text / undefined for non-JSON / empty answers). */
export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) => apiRequest<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>('PUT', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>('PATCH', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => apiRequest<T>('DELETE', path, options),
};

function redirectOnAuthError(error: ApiError): void {
  const here = window.location.pathname;
  if (error.status === 403 && error.reason === 'not_verified') {
    if (here !== NOT_VERIFIED_PATH) goToPage(NOT_VERIFIED_PATH);
    return;
  }
  if ((error.status === 401 || error.status === 403) && here !== '/') goToPage('/');
}

function readCsrfToken(): string | null {
  const tag = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]');
  if (tag === null) {
    console.error('CSRF-token ontbreekt: geen <meta name="csrf-token"> in de pagina');
    return null;
  }
  return tag.content;
}

function withQuery(path: string, query: RequestOptions['query']): string {
  if (query === undefined) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  if (search === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${search}`;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  const contentType = response.headers.get('Content-Type') ?? '';
  if (contentType.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function readStringField(body: unknown, field: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

function readFieldErrors(body: unknown): FieldErrors {
  if (typeof body !== 'object' || body === null) return {};
  const errors = (body as Record<string, unknown>).errors;
  if (typeof errors !== 'object' || errors === null) return {};
  const result: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) {
    if (Array.isArray(messages)) result[field] = messages.filter((m): m is string => typeof m === 'string');
    else if (typeof messages === 'string') result[field] = [messages];
  }
  return result;
}
