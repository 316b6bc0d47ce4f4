import { packageVersion } from '@devplein/server-kit/operator-gauges';

/**
 * Version of the host agent, from host-agent/package.json (reported by InfoService.GetInfo): the
 * nearest package.json of that name above this module, from the sources and from the compiled
 * dist/bin/ alike.
 */
export const AGENT_VERSION: string = packageVersion(import.meta.url, '@devplein/host-agent');
