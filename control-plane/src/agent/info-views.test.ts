import { describe, expect, it } from 'vitest';
import { agentInfoViewOf } from './info-views.ts';

describe('agentInfoViewOf', () => {
  it('presents Info as plain JSON, with missing capabilities shown as unavailable', () => {
    const view = agentInfoViewOf({
      agentVersion: '0.1.0',
      contractVersion: '1.0.0',
      hostname: 'dev1',
      startedAt: new Date('2026-01-05T08:00:00Z'),
      capabilities: {
        docker: { available: true, detail: 'Docker 26' },
        proxy: undefined,
        mysql: { available: false, detail: 'AGENT_MYSQL_URL is not set' },
        chromium: undefined,
        wireguard: undefined,
      },
    });
    expect(view).toEqual({
      agentVersion: '0.1.0',
      contractVersion: '1.0.0',
      hostname: 'dev1',
      capabilities: {
        docker: { available: true, detail: 'Docker 26' },
        proxy: { available: false, detail: 'not reported by the agent' },
        mysql: { available: false, detail: 'AGENT_MYSQL_URL is not set' },
        chromium: { available: false, detail: 'not reported by the agent' },
        wireguard: { available: false, detail: 'not reported by the agent' },
      },
    });
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    expect(agentInfoViewOf({ agentVersion: 'x', contractVersion: 'y', hostname: 'z', startedAt: undefined, capabilities: undefined }).capabilities.docker.available).toBe(false);
  });
});
