import { isDeepStrictEqual } from 'node:util';
import type { AgentConfig } from '../../config.ts';
import { withAccessLog, withServerLogs } from './access-log.ts';
import { CaddyAdminClient } from './caddy-admin-client.ts';
import {
  CATCH_ALL_ID,
  type CaddyRouteJson,
  catchAllRoute,
  fromCaddyRoute,
  parseDomain,
  parseRoute,
  routeId,
  toCaddyRoute,
} from './caddy-route.ts';
import type { ProxyDriver, ProxyRoute } from './proxy-driver.ts';

export interface CaddyProxyDriverOptions {
  /** Base URL of Caddy's admin API. */
  adminUrl: string;
  /** Name of the HTTP server (under apps.http.servers) whose routes the agent manages. */
  server: string;
  /** Listen address used only when the agent has to create that server, e.g. ":80". */
  listen: string;
  /** Per admin request; default 5 s. */
  timeoutMs?: number;
  /**
   * host:port of the agent's UDP listener for the server's access log (see access-log.ts);
   * undefined: the server has no access log from the agent (one left by an earlier run is taken out).
   */
  accessLogAddress?: string;
}

/** Most duplicates of one `@id` removeRoute clears (Caddy accepts duplicates silently). */
const MAX_DUPLICATES = 20;

/** Upserts waiting for their turn in the queue; the later route of a domain wins. */
type UpsertBatch = Map<string, { route: ProxyRoute; callers: Array<{ resolve: (answer: { created: boolean }) => void; reject: (error: unknown) => void }> }>;

/**
 * ProxyDriver on Caddy 2.6's admin API. Each project route carries an `@id` derived from its
 * domain, so it is read, replaced (PATCH) and deleted through `/id/…` without knowing its index;
 * new routes go in at index 0, ahead of the final catch-all 404. Changes are serialised in this
 * process: Caddy would happily store two routes with the same `@id` when two upserts race.
 * Every change reloads Caddy's whole config, so upserts that queued up behind another change
 * (30 containers created at once) are written together: one read of the routes, one PATCH of
 * the list, one reload. Nothing waits on a timer: a lone upsert goes out as soon as it is its turn.
 */
export class CaddyProxyDriver implements ProxyDriver {
  private readonly admin: CaddyAdminClient;
  private readonly serverPath: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The upserts queued since the last other change; undefined once that batch is closed. */
  private openBatch: UpsertBatch | undefined;

  constructor(private readonly options: CaddyProxyDriverOptions) {
    this.admin = new CaddyAdminClient({ adminUrl: options.adminUrl, timeoutMs: options.timeoutMs ?? 5_000 });
    this.serverPath = `/config/apps/http/servers/${encodeURIComponent(options.server)}`;
  }

  ensureServer(): Promise<void> {
    return this.serialised(async () => {
      await this.ensureServerNow();
    });
  }

  upsertRoute(input: ProxyRoute): Promise<{ created: boolean }> {
    const route = parseRoute(input);
    return new Promise((resolve, reject) => {
      const joined = this.openBatch;
      const batch: UpsertBatch = joined ?? new Map();
      const entry = batch.get(route.domain);
      if (entry) {
        entry.route = route;
        entry.callers.push({ resolve, reject });
      } else {
        batch.set(route.domain, { route, callers: [{ resolve, reject }] });
      }
      if (joined) return;
      this.serialised(() => this.writeBatch(batch)).catch(() => undefined);
      // Set after serialised(), which closes any open batch: upserts from now on join this one.
      this.openBatch = batch;
    });
  }

  /** Writes a batch of upserts and answers each caller; a failure fails all of them. */
  private async writeBatch(batch: UpsertBatch): Promise<void> {
    // Its turn came: upserts from now on start the next batch.
    if (this.openBatch === batch) this.openBatch = undefined;
    const entries = [...batch.values()];
    try {
      const created = entries.length === 1 ? [await this.upsertOneNow(entries[0]!.route)] : await this.upsertManyNow(entries.map((entry) => entry.route));
      entries.forEach((entry, index) => entry.callers.forEach((caller) => caller.resolve({ created: created[index]! })));
    } catch (error) {
      entries.forEach((entry) => entry.callers.forEach((caller) => caller.reject(error)));
    }
  }

  private async upsertOneNow(route: ProxyRoute): Promise<boolean> {
    const path = `/id/${routeId(route.domain)}`;
    const existing = await this.admin.request('GET', path, undefined, [404]);
    if (existing.status === 200) {
      await this.admin.request('PATCH', path, toCaddyRoute(route));
      return false;
    }
    await this.ensureServerNow();
    await this.admin.request('PUT', `${this.serverPath}/routes/0`, toCaddyRoute(route));
    return true;
  }

  /** Several routes in one write of the server's route list: replaced in place, new ones in front. */
  private async upsertManyNow(routes: ProxyRoute[]): Promise<boolean[]> {
    const server = await this.ensureServerNow();
    const current = Array.isArray(server.routes) ? (server.routes as CaddyRouteJson[]) : [];
    const added: CaddyRouteJson[] = [];
    const created = routes.map((route) => {
      const id = routeId(route.domain);
      const index = current.findIndex((existing) => existing['@id'] === id);
      if (index >= 0) {
        current[index] = toCaddyRoute(route);
        return false;
      }
      added.push(toCaddyRoute(route));
      return true;
    });
    await this.admin.request('PATCH', `${this.serverPath}/routes`, [...added, ...current]);
    return created;
  }

  removeRoute(input: string): Promise<boolean> {
    const domain = parseDomain(input);
    return this.serialised(async () => {
      let removed = false;
      for (let attempt = 0; attempt < MAX_DUPLICATES; attempt += 1) {
        const answer = await this.admin.request('DELETE', `/id/${routeId(domain)}`, undefined, [404]);
        if (answer.status === 404) break;
        removed = true;
      }
      return removed;
    });
  }

  async listRoutes(): Promise<ProxyRoute[]> {
    const routes = await this.readRoutes();
    return routes.map(fromCaddyRoute).filter((route): route is ProxyRoute => route !== undefined);
  }

  /** The server's config; undefined when Caddy has no such server. */
  private async readServer(): Promise<{ routes?: unknown; logs?: unknown } | undefined> {
    // A path through a missing key (no http app yet) is a 400 "invalid traversal path".
    const answer = await this.admin.request('GET', this.serverPath, undefined, [400, 404]);
    if (answer.status !== 200) return undefined;
    return typeof answer.body === 'object' && answer.body !== null ? (answer.body as { routes?: unknown; logs?: unknown }) : undefined;
  }

  /**
   * Makes Caddy's access log of the server match `accessLogAddress` (on or off); changes only
   * what differs, since every change reloads Caddy's whole config.
   */
  private async syncAccessLogNow(server: { logs?: unknown }): Promise<void> {
    const { accessLogAddress, server: name } = this.options;
    const target = accessLogAddress ? { server: name, address: accessLogAddress } : undefined;
    const answer = await this.admin.request('GET', '/config/logging', undefined, [400, 404]);
    const logging: unknown = answer.status === 200 ? answer.body : undefined;
    const wantedLogging = withAccessLog(logging, name, target);
    if (!isDeepStrictEqual(logging ?? {}, wantedLogging)) {
      if (Object.keys(wantedLogging).length > 0) await this.admin.request('POST', '/config/logging', wantedLogging);
      else await this.admin.request('DELETE', '/config/logging', undefined, [400, 404]);
    }
    const wantedLogs = withServerLogs(server.logs, name, target !== undefined);
    if (!isDeepStrictEqual(server.logs, wantedLogs)) {
      if (wantedLogs) await this.admin.request('POST', `${this.serverPath}/logs`, wantedLogs);
      else await this.admin.request('DELETE', `${this.serverPath}/logs`, undefined, [400, 404]);
    }
  }

  private async readRoutes(): Promise<CaddyRouteJson[]> {
    const routes = (await this.readServer())?.routes;
    return Array.isArray(routes) ? (routes as CaddyRouteJson[]) : [];
  }

  /**
   * Creates the server when Caddy has none by that name (listen address from config, automatic
   * HTTPS off: TLS for the dev domain is the sysadmin's business) or adds a missing catch-all;
   * then brings its access log in line (a restarted Caddy has lost it with the routes).
   */
  private async ensureServerNow(): Promise<{ routes?: unknown; logs?: unknown }> {
    await this.ensureRoutesNow();
    const server = (await this.readServer()) ?? {};
    await this.syncAccessLogNow(server);
    // The routes as they are now: syncing the access log changes only the logs.
    return server;
  }

  private async ensureRoutesNow(): Promise<void> {
    const server = await this.readServer();
    if (server === undefined) {
      const fresh = { listen: [this.options.listen], automatic_https: { disable: true }, routes: [catchAllRoute()] };
      // A Caddy with only its admin API has no http app (or no apps) yet: PUT at the deepest
      // level that exists, since Caddy refuses paths through missing keys.
      const apps = (await this.admin.request('GET', '/config/apps')).body;
      if (typeof apps !== 'object' || apps === null) {
        await this.admin.request('PUT', '/config/apps', { http: { servers: { [this.options.server]: fresh } } });
      } else if (!('http' in apps) || typeof apps.http !== 'object' || apps.http === null) {
        await this.admin.request('PUT', '/config/apps/http', { servers: { [this.options.server]: fresh } });
      } else if (!('servers' in apps.http) || typeof apps.http.servers !== 'object' || apps.http.servers === null) {
        await this.admin.request('PUT', '/config/apps/http/servers', { [this.options.server]: fresh });
      } else {
        await this.admin.request('PUT', this.serverPath, fresh);
      }
      return;
    }
    // Caddy refuses to POST into a missing key and to PUT at index 0 of an empty list: a server
    // without routes gets a list holding just the catch-all; otherwise it is appended.
    if (!Array.isArray(server.routes)) {
      await this.admin.request('PUT', `${this.serverPath}/routes`, [catchAllRoute()]);
    } else if (!(server.routes as CaddyRouteJson[]).some((route) => route['@id'] === CATCH_ALL_ID)) {
      await this.admin.request('POST', `${this.serverPath}/routes`, catchAllRoute());
    }
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    // A change queued after an upsert: later upserts must not jump ahead of it into that batch.
    this.openBatch = undefined;
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/**
 * The agent's one Caddy driver, built from its config. server.ts makes one and hands the same
 * instance to every user (proxy service, route keeper, container service), so their changes
 * go through one queue.
 */
export function createCaddyProxyDriver(config: Pick<AgentConfig, 'caddyAdminUrl' | 'caddy' | 'probeTimeoutMs'>, accessLogAddress?: string): CaddyProxyDriver {
  return new CaddyProxyDriver({
    adminUrl: config.caddyAdminUrl,
    server: config.caddy.server,
    listen: config.caddy.listen,
    timeoutMs: Math.max(config.probeTimeoutMs, 5_000),
    accessLogAddress,
  });
}
