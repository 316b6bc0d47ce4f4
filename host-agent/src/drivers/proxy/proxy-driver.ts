/** One proxy route: requests for `domain` go to `upstream` ("host:port"). */
export interface ProxyRoute {
  /** Lower-case host name, matched exactly. */
  domain: string;
  upstream: string;
  /** Project the route belongs to; 0 for none. */
  projectId: number;
}

/**
 * The host's reverse proxy as the agent programs it (Caddy's admin API in production). Every
 * method is idempotent; failures to reach the proxy reject with ProxyUnavailableError.
 */
export interface ProxyDriver {
  /** Creates the managed HTTP server (with its catch-all 404) when it does not exist yet. */
  ensureServer(): Promise<void>;
  /** Adds or replaces the route of `route.domain`; `created` is false when one was replaced. */
  upsertRoute(route: ProxyRoute): Promise<{ created: boolean }>;
  /** Removes the route of a domain; false when there was none. */
  removeRoute(domain: string): Promise<boolean>;
  /** The routes the agent manages (not the catch-all). */
  listRoutes(): Promise<ProxyRoute[]>;
}

/** The proxy's admin API did not answer (maps to gRPC UNAVAILABLE). */
export class ProxyUnavailableError extends Error {
  override name = 'ProxyUnavailableError';
}
