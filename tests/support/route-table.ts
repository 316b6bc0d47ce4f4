/**
 * The (method, path) pairs of the control plane's real route table: `appRouters(deps)` of
 * control-plane/src/routes/route-table.ts, each @koa/router layer's methods and path. Tests that must cover
 * every route (routes × roles, the property tests of the write endpoints) derive their list
 * from here, so a new route without an entry fails them.
 */
import { pino } from 'pino';
import type { AppDeps } from '../../control-plane/src/app-context.ts';
import { appRouters } from '../../control-plane/src/routes/route-table.ts';
import { loadConfig } from '../../control-plane/src/config.ts';

export interface RouteEntry {
  method: string;
  path: string;
  /** `METHOD /path/:param`. */
  key: string;
}

/** The routes in the order of appRouters (HEAD comes with GET and is left out). */
export function routeTable(): RouteEntry[] {
  const config = loadConfig({ NODE_ENV: 'test', DEV_LOGIN: '1', SESSION_SECRET: 'route-table-secret-0123456789abcdef0123' });
  // Building the routers touches none of their dependencies.
  const unused = new Proxy({}, { get: () => undefined });
  const deps = {
    config,
    knex: unused,
    logger: pino({ level: 'silent' }),
    // The project request schema reads the dev servers' site domains when its router is built.
    agents: { links: [] },
    realtime: unused,
    schoolProvider: unused,
    courseFiles: unused,
    secrets: unused,
    services: unused,
  } as unknown as AppDeps;
  const entries: RouteEntry[] = [];
  const seen = new Set<string>();
  for (const router of appRouters(deps)) {
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue;
        const key = `${method} ${layer.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        entries.push({ method, path: String(layer.path), key });
      }
    }
  }
  return entries;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The write endpoints: POST/PUT/PATCH/DELETE under /api and /broadcasting. */
export function writeRoutes(): RouteEntry[] {
  return routeTable().filter((route) => UNSAFE.has(route.method) && /^\/(api|broadcasting)\//.test(route.path));
}
