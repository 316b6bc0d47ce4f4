import type { Knex } from 'knex';
import type { Logger } from 'pino';
import pg from 'pg';
import type { AppMiddleware } from '../http-context.ts';
import { embeddedPglite } from '../db/knex.ts';
import { IDENTITY_CHANNEL, type IdentityCache } from './identity-cache.ts';

/**
 * Feeds the identity cache with the notices of migration 0011's triggers.
 *
 * - PostgreSQL (DATABASE_URL): one dedicated connection LISTENs. Notices from every process
 *   arrive in commit order. When the connection drops the cache is cleared and bypassed until
 *   it is back (notices may have been missed), reconnecting with a growing delay.
 * - Embedded PGlite: PGlite calls the listener synchronously when the writing transaction
 *   commits, so the cache is already invalidated when the query that committed returns.
 *
 * `settle()` is the "next request" guarantee on PostgreSQL: when it returns, every notice of a
 * write committed (by any process) before it was called has been applied. Each request with a
 * session cookie calls it before reading the cache (settleBeforeSignedInRequests).
 */
export interface IdentityNotices {
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** The listening connection's application_name (pg_stat_activity shows it). */
export const NOTICE_CONNECTION_NAME = 'devplein-identity-notices';
const SETTLE_TIMEOUT_MS = 2_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export async function startIdentityNotices(options: {
  knex: Knex;
  databaseUrl: string | undefined;
  cache: IdentityCache;
  logger: Logger;
}): Promise<IdentityNotices> {
  const pglite = embeddedPglite(options.knex);
  if (pglite) {
    const unlisten = await pglite.listen(IDENTITY_CHANNEL, (payload) => options.cache.applyNotice(payload));
    options.cache.setListening(true);
    return {
      settle: () => Promise.resolve(),
      stop: async () => {
        options.cache.setListening(false);
        await unlisten();
      },
    };
  }
  if (!options.databaseUrl) return { settle: () => Promise.resolve(), stop: () => Promise.resolve() };
  const listener = new PostgresListener(options.databaseUrl, options.knex, options.cache, options.logger);
  await listener.connect();
  return listener;
}

class PostgresListener implements IdentityNotices {
  #client: pg.Client | undefined;
  #stopped = false;
  #delayMs = RECONNECT_MIN_MS;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #runningPing: Promise<void> | undefined;
  #queuedPing: Promise<void> | undefined;
  readonly #lostClients = new WeakSet<pg.Client>();

  constructor(
    private readonly databaseUrl: string,
    private readonly knex: Knex,
    private readonly cache: IdentityCache,
    private readonly logger: Logger,
  ) {}

  async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: NOTICE_CONNECTION_NAME });
    client.on('notification', (message) => {
      if (message.channel !== IDENTITY_CHANNEL) return;
      this.cache.applyNotice(message.payload ?? '');
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${IDENTITY_CHANNEL}`);
    } catch (error) {
      this.#lost(client, error);
      return;
    }
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#delayMs = RECONNECT_MIN_MS;
    this.cache.setListening(true);
  }

  /**
   * One round trip on the listening connection: PostgreSQL sends a listener its pending notices
   * before the ReadyForQuery of its next query, and the writer's commit signalled it before the
   * writer got its answer. So when a ping that started after a commit returns, that commit's
   * notices have been applied. Concurrent callers share pings: a caller waits for the first ping
   * that starts after its call, so one ping serves every request that arrived meanwhile.
   */
  settle(): Promise<void> {
    if (!this.cache.listening) return Promise.resolve();
    if (this.#queuedPing) return this.#queuedPing;
    const running = this.#runningPing;
    if (!running) return this.#startPing();
    this.#queuedPing = running.then(() => {
      this.#queuedPing = undefined;
      return this.#startPing();
    });
    return this.#queuedPing;
  }

  #startPing(): Promise<void> {
    const ping = this.#ping().finally(() => {
      if (this.#runningPing === ping) this.#runningPing = undefined;
    });
    this.#runningPing = ping;
    return ping;
  }

  async #ping(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), SETTLE_TIMEOUT_MS);
    });
    try {
      const answer = await Promise.race([client.query('select 1'), timeout]);
      // No answer in time: treat the connection as lost rather than answer from a stale cache.
      if (answer === 'timeout') this.#lost(client, new Error('identity notice connection did not answer'));
    } catch (error) {
      this.#lost(client, error);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#reconnectTimer);
    this.cache.setListening(false);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #lost(client: pg.Client, error: unknown): void {
    // A connection reports its loss once ('error' and then 'end'); a late event of an old one
    // must not turn off the cache its successor feeds.
    if (this.#lostClients.has(client)) return;
    this.#lostClients.add(client);
    if (this.#client === client) this.#client = undefined;
    this.cache.setListening(false);
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.#stopped || this.#reconnectTimer) return;
    this.logger.warn({ err: error, retryInMs: this.#delayMs }, 'identity cache: notice connection lost; cache off until reconnected');
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.connect();
    }, this.#delayMs);
    this.#reconnectTimer.unref();
    this.#delayMs = Math.min(this.#delayMs * 2, RECONNECT_MAX_MS);
  }
}

/** Only a request that carries a session cookie reads the cached session and user. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?devplein_session=/;

/**
 * Before anything reads the cache for a signed-in request: every notice of a write committed
 * before this request started is applied (one shared round trip, see settle()). This is what
 * makes "the next request sees it" hold for writes of any process, and for writes made outside
 * the control plane.
 */
export function settleBeforeSignedInRequests(notices: IdentityNotices): AppMiddleware {
  return async (ctx, next) => {
    if (SESSION_COOKIE.test(ctx.get('cookie'))) await notices.settle();
    await next();
  };
}
