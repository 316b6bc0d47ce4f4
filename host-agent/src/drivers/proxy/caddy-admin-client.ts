import http from 'node:http';
import { ProxyUnavailableError } from './proxy-driver.ts';

/** Caddy answered, but refused the request (a bad config change, an unexpected status). */
export class CaddyAdminError extends Error {
  override name = 'CaddyAdminError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A parsed answer of the admin API. */
export interface CaddyAnswer {
  status: number;
  /** The JSON body; undefined when the body was empty. */
  body: unknown;
}

export interface CaddyAdminClientOptions {
  /** Base URL of the admin endpoint, e.g. http://127.0.0.1:2019. */
  adminUrl: string;
  /** Per request; a slower answer counts as "Caddy does not answer". */
  timeoutMs: number;
}

/**
 * Thin JSON client of Caddy's admin API. Its one job is to tell "Caddy is not there" (refused,
 * reset, timed out → ProxyUnavailableError, which the services map to UNAVAILABLE) apart from
 * "Caddy said no" (CaddyAdminError).
 */
export class CaddyAdminClient {
  private readonly base: string;

  constructor(private readonly options: CaddyAdminClientOptions) {
    this.base = options.adminUrl.replace(/\/+$/, '');
  }

  /**
   * One request on a connection of its own (no keep-alive pool): Caddy closes every admin
   * connection when it loads a new config, and a pooled one reused after that fails before the
   * request is read, so a pool holding several of them could fail the retry below too.
   */
  private send(method: string, path: string, body: unknown): Promise<{ response: { ok: boolean; status: number }; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        `${this.base}${path}`,
        {
          method,
          agent: false,
          headers: payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
          signal: AbortSignal.timeout(this.options.timeoutMs),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            resolve({ response: { ok: status >= 200 && status < 300, status }, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  /**
   * Sends one request. Statuses in `accept` (besides 2xx) come back as answers; any other
   * status throws CaddyAdminError with Caddy's error text.
   */
  async request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, accept: number[] = []): Promise<CaddyAnswer> {
    let response: { ok: boolean; status: number };
    let text: string;
    try {
      ({ response, text } = await this.send(method, path, body));
    } catch (error) {
      if (!isStaleConnection(error)) {
        throw new ProxyUnavailableError(`Caddy's admin API at ${this.base} does not answer: ${describe(error)}`, { cause: error });
      }
      // Caddy closes its admin connections when it loads a new config; a pooled keep-alive
      // connection then fails before the request is read. One fresh attempt is safe.
      try {
        ({ response, text } = await this.send(method, path, body));
      } catch (retryError) {
        throw new ProxyUnavailableError(`Caddy's admin API at ${this.base} does not answer: ${describe(retryError)}`, { cause: retryError });
      }
    }
    const parsed = parseJson(text);
    if (response.ok || accept.includes(response.status)) return { status: response.status, body: parsed };
    const reason = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? String(parsed.error) : text.slice(0, 300);
    throw new CaddyAdminError(`Caddy refused ${method} ${path} (${response.status}): ${reason}`, response.status);
  }
}

/** The connection died before any answer (reset or closed by Caddy), not a timeout or a refusal. */
function isStaleConnection(error: unknown): boolean {
  const text = describe(error);
  return /other side closed|ECONNRESET|socket hang up|UND_ERR_SOCKET/i.test(text);
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
