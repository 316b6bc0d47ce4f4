import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { agentCheck } from './config-check-agent.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'config-check-agent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tls = Object.fromEntries(['AGENT_TLS_CA', 'AGENT_TLS_CERT', 'AGENT_TLS_KEY'].map((name) => [name, path.join(dir, `${name}.pem`)]));
for (const file of Object.values(tls)) writeFileSync(file, 'x');

function starts(env: Record<string, string>): boolean {
  try {
    loadConfig(env);
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

describe('devplein config check agent', () => {
  it('agrees with the agent itself about its settings', () => {
    const cases: Array<Record<string, string>> = [
      tls,
      {},
      { ...tls, AGENT_LISTEN: '127.0.0.1:70000' },
      { ...tls, AGENT_IDLE_STOP_AFTER: '7 days' },
      { ...tls, AGENT_CONTAINER_MEMORY_MB: '1024', AGENT_CONTAINER_MAX_MEMORY_MB: '512' },
      { ...tls, AGENT_WG_FIREWALL: 'nft' },
      { ...tls, AGENT_MYSQL_URL: '' },
    ];
    expect(cases.map((env) => agentCheck.check(env).length === 0)).toEqual(cases.map(starts));
  });

  it('names each wrong variable, and the certificate and secret files it could not read', () => {
    const secret = path.join(dir, 'missing-secret');
    const problems = agentCheck.check({
      ...tls,
      AGENT_TLS_KEY: path.join(dir, 'none.pem'),
      AGENT_LISTEN: 'nergens',
      AGENT_BROWSER_SERVER: '127.0.0.1:9223',
      AGENT_BROWSER_SECRET_FILE: secret,
      // Not in use without AGENT_GIT_RUNNER: not checked.
      AGENT_GIT_RUNNER_SECRET_FILE: secret,
    });
    expect(problems).toEqual([
      { variable: 'AGENT_LISTEN', problem: 'ongeldig; verwacht: expected host:port, e.g. 127.0.0.1:7443' },
      { variable: 'AGENT_TLS_KEY', problem: `het bestand ${path.join(dir, 'none.pem')} bestaat niet` },
      { variable: 'AGENT_BROWSER_SECRET_FILE', problem: `het bestand ${secret} bestaat niet` },
    ]);
    expect(agentCheck.check({})[0]).toEqual({ variable: 'AGENT_TLS_CA', problem: 'ontbreekt; verwacht: AGENT_TLS_CA is required (a file path)' });
  });
});
