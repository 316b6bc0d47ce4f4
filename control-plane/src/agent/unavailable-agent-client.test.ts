import { describe, expect, it } from 'vitest';
import { ContainerServiceService } from '@devplein/proto/container';
import { DeployServiceService } from '@devplein/proto/deploy';
import { AgentError } from './agent-error.ts';
import { createUnavailableAgentClient } from './unavailable-agent-client.ts';

const AREAS = ['containers', 'proxy', 'ssh', 'databases', 'vpn', 'screenshots', 'hostStats', 'containerStats', 'deploys'] as const;

/** What calling `method` gives: the rejection of its promise, or of its stream's first next(). */
async function failureOf(method: () => unknown): Promise<unknown> {
  const result = method();
  try {
    if (result instanceof Promise) await result;
    else await (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().next();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createUnavailableAgentClient', () => {
  const client = createUnavailableAgentClient('geen certificaten');

  it('fails every method of every service with UNAVAILABLE and the reason, streams at their first item', async () => {
    for (const area of AREAS) {
      const api = client[area] as unknown as Record<string, () => unknown>;
      expect(Object.keys(api).length, area).toBeGreaterThan(0);
      for (const [name, method] of Object.entries(api)) {
        const error = await failureOf(method);
        expect(error, `${area}.${name}`).toBeInstanceOf(AgentError);
        expect((error as AgentError).code, `${area}.${name}`).toBe('UNAVAILABLE');
        expect((error as AgentError).details, `${area}.${name}`).toBe('geen certificaten');
      }
    }
    await expect(client.info()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(client.status()).toMatchObject({ state: 'unreachable', lastError: 'geen certificaten' });
  });

  it('has each RPC of the generated definitions, a stream where the RPC streams', () => {
    expect(Object.keys(client.containers).sort()).toEqual(Object.keys(ContainerServiceService).sort());
    const stream = client.deploys.deployRepository({} as never);
    expect(Symbol.asyncIterator in stream).toBe(true);
    expect(DeployServiceService.deployRepository.responseStream).toBe(true);
  });
});
