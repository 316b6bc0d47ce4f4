import { readFileSync } from 'node:fs';

/** Version of the host agent, from host-agent/package.json (reported by InfoService.GetInfo). */
export const AGENT_VERSION: string = (() => {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof packageJson.version === 'string' ? packageJson.version : '0.0.0';
})();
