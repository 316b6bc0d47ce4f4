import type { ProxyRoute } from './proxy-driver.ts';

/**
 * How the agent's routes look inside Caddy's JSON config, and the checks a route passes before
 * it gets there. Only routes whose `@id` starts with ROUTE_ID_PREFIX are the agent's; anything
 * else on the server (a sysadmin's own routes) is left alone.
 */

/** `@id` prefix of every route the agent manages. */
export const ROUTE_ID_PREFIX = 'devplein-route-';

/** `@id` of the final route that answers 404 for host names no project has. */
export const CATCH_ALL_ID = 'devplein-catch-all';

/** What a visitor of an unknown (or removed) project domain reads. */
export const CATCH_ALL_BODY = 'Deze website bestaat niet (meer).';

/** A domain or upstream the proxy must not get (maps to gRPC INVALID_ARGUMENT). */
export class InvalidRouteError extends Error {
  override name = 'InvalidRouteError';
}

const hostLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name as Caddy matches it: lower-case letters, digits and hyphens in dot-separated
 * labels. Trimmed and lower-cased first (host matching ignores case anyway); anything else —
 * wildcards, ports, paths, spaces — is refused, so a route can never match more than one site.
 */
export function parseDomain(input: string): string {
  const domain = input.trim().toLowerCase();
  if (domain.length === 0 || domain.length > 253 || !domain.split('.').every((label) => hostLabel.test(label))) {
    throw new InvalidRouteError(`invalid domain ${JSON.stringify(input)}: expected a host name such as blog.dev.school.nl`);
  }
  return domain;
}

/**
 * An upstream dial address "host:port" (host name, IPv4 or [IPv6]; port 1-65535). Refuses
 * schemes, paths and placeholders: Caddy would read `{…}` as a placeholder.
 */
export function parseUpstream(input: string): string {
  const upstream = input.trim();
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(upstream);
  const port = Number(match?.[2]);
  const host = match?.[1] ?? '';
  const hostOk = host.startsWith('[') || host.split('.').every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label));
  if (!match || !hostOk || port < 1 || port > 65_535) {
    throw new InvalidRouteError(`invalid upstream ${JSON.stringify(input)}: expected host:port such as 127.0.0.1:32768`);
  }
  return upstream;
}

/**
 * Whether a (parsed, lower-case) domain lies under the agent's site domain: a name in front of
 * it, at any depth (`blog.dev.school.nl`, `api.blog.dev.school.nl`), never the site domain
 * itself or another domain. Only such domains get routes on this host's proxy, so no caller
 * can point the school's own names (the control plane's, phpMyAdmin's) at a container.
 */
export function isUnderSiteDomain(domain: string, siteDomain: string): boolean {
  return domain.endsWith(`.${siteDomain}`) && domain.length > siteDomain.length + 1;
}

/** Checks and normalises a whole route (domain lower-cased, project id a non-negative integer). */
export function parseRoute(route: ProxyRoute): ProxyRoute {
  if (!Number.isSafeInteger(route.projectId) || route.projectId < 0) {
    throw new InvalidRouteError(`invalid project id ${String(route.projectId)}`);
  }
  return { domain: parseDomain(route.domain), upstream: parseUpstream(route.upstream), projectId: route.projectId };
}

/**
 * The route's `@id`. Dots become underscores (host names have none), so two domains never share
 * an id: with hyphens `a-b.nl` and `a.b-nl` would.
 */
export function routeId(domain: string): string {
  return `${ROUTE_ID_PREFIX}${domain.replaceAll('.', '_')}`;
}

/** One route of Caddy's HTTP server config, as far as the agent reads it. */
export interface CaddyRouteJson {
  '@id'?: string;
  match?: Array<{ host?: string[] }>;
  handle?: Array<{ handler?: string; upstreams?: Array<{ dial?: string }>; devplein_project_id?: string }>;
  terminal?: boolean;
}

/**
 * The Caddy JSON of a route: match the host exactly, then a `vars` handler that only carries the
 * project id (Caddy refuses unknown fields elsewhere; a variable is harmless and survives a
 * config reload), then reverse_proxy to the upstream.
 */
export function toCaddyRoute(route: ProxyRoute): CaddyRouteJson {
  return {
    '@id': routeId(route.domain),
    match: [{ host: [route.domain] }],
    handle: [
      { handler: 'vars', devplein_project_id: String(route.projectId) },
      { handler: 'reverse_proxy', upstreams: [{ dial: route.upstream }] },
    ],
    terminal: true,
  };
}

/** Reads back a route the agent wrote; undefined for routes that are not the agent's. */
export function fromCaddyRoute(json: CaddyRouteJson): ProxyRoute | undefined {
  const id = json['@id'];
  if (typeof id !== 'string' || !id.startsWith(ROUTE_ID_PREFIX)) return undefined;
  const domain = json.match?.[0]?.host?.[0];
  const upstream = json.handle?.find((handler) => handler.handler === 'reverse_proxy')?.upstreams?.[0]?.dial;
  if (typeof domain !== 'string' || typeof upstream !== 'string') return undefined;
  const projectId = Number(json.handle?.find((handler) => handler.handler === 'vars')?.devplein_project_id ?? 0);
  return { domain, upstream, projectId: Number.isSafeInteger(projectId) && projectId >= 0 ? projectId : 0 };
}

/** The final route: every host without a project route gets 404 instead of Caddy's empty 200. */
export function catchAllRoute(): Record<string, unknown> {
  return {
    '@id': CATCH_ALL_ID,
    handle: [{ handler: 'static_response', status_code: 404, body: CATCH_ALL_BODY, headers: { 'Content-Type': ['text/plain; charset=utf-8'] } }],
  };
}
