import { describe, expect, it } from 'vitest';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { callMetadata, presentAgentInfo, REQUEST_ID_METADATA_KEY } from './agent-client.ts';

describe('agent client helpers', () => {
  it('send the contract version and a request id on every call', () => {
    const metadata = callMetadata('req-42');
    expect(metadata.get(CONTRACT_VERSION_METADATA_KEY)).toEqual([CONTRACT_VERSION]);
    expect(metadata.get(REQUEST_ID_METADATA_KEY)).toEqual(['req-42']);
    expect(callMetadata().get(REQUEST_ID_METADATA_KEY)[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('present Info as plain JSON, with missing capabilities shown as unavailable', () => {
    const view = presentAgentInfo({
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
    expect(presentAgentInfo({ agentVersion: 'x', contractVersion: 'y', hostname: 'z', startedAt: undefined, capabilities: undefined }).capabilities.docker.available).toBe(false);
  });
});
