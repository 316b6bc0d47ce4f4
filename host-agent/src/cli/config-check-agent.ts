/**
 * `devplein config check agent`: what the agent would refuse at start-up (config.ts, its schema
 * with the rules across variables), and the files its settings name that it could not read: its
 * mTLS certificate, key and CA, and the secrets of the browser server and git runner (handed
 * over by LoadCredential=).
 */
import type { ConfigCheckRole } from '@devplein/server-kit/config-check-cli';
import { pathProblems, schemaProblems } from '@devplein/server-kit/config-problems';
import { checkedEnvironmentSchema } from '../config.ts';

/** Files the agent reads at start, each when its setting is in use. */
function namedFiles(env: Record<string, string | undefined>): Array<{ variable: string; path: string; kind: 'file' }> {
  const inUse: Array<[string, boolean]> = [
    ['AGENT_TLS_CA', true],
    ['AGENT_TLS_CERT', true],
    ['AGENT_TLS_KEY', true],
    ['AGENT_BROWSER_SECRET_FILE', Boolean(env.AGENT_BROWSER_SERVER?.trim())],
    ['AGENT_GIT_RUNNER_SECRET_FILE', Boolean(env.AGENT_GIT_RUNNER?.trim())],
  ];
  return inUse.flatMap(([variable, used]) => {
    const file = env[variable]?.trim();
    return used && file ? [{ variable, path: file, kind: 'file' as const }] : [];
  });
}

export const agentCheck: ConfigCheckRole = {
  name: 'agent',
  check(env) {
    return [...schemaProblems(checkedEnvironmentSchema, env), ...pathProblems(namedFiles(env))];
  },
};
