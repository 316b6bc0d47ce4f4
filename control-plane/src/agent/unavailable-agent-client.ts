import * as grpc from '@grpc/grpc-js';
import { ContainerServiceService } from '@devplein/proto/container';
import { ContainerStatsServiceService } from '@devplein/proto/container_stats';
import { DatabaseServiceService } from '@devplein/proto/database';
import { DeployServiceService } from '@devplein/proto/deploy';
import { HostStatsServiceService } from '@devplein/proto/host_stats';
import { ProxyServiceService } from '@devplein/proto/proxy';
import { ScreenshotServiceService } from '@devplein/proto/screenshot';
import { SshAccessServiceService } from '@devplein/proto/ssh_access';
import { VpnServiceService } from '@devplein/proto/vpn';
import { AgentError } from './agent-error.ts';
import type { AgentClient } from './agent-client.ts';

/** A generated service definition: each RPC's name and whether it answers with a stream. */
type ServiceDefinition<Methods extends PropertyKey> = { readonly [Method in Methods]: { readonly responseStream: boolean } };

/**
 * An Api whose every method fails with `error`: a unary RPC's promise rejects, a server stream's
 * first next() does. Made from the generated definition, so a new RPC needs nothing here, and
 * an Api method that is no RPC of the service fails to compile unless `alsoUnary` names it (a
 * second method over one RPC, like createDeployKey over GetDeployKey).
 */
function failingApi<Api, Also extends keyof Api = never>(
  definition: ServiceDefinition<Exclude<keyof Api, Also>>,
  error: () => AgentError,
  alsoUnary: readonly Also[] = [],
): Api {
  const failingStream: AsyncIterable<never> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error()) }) };
  const methods = Object.entries<{ responseStream: boolean }>(definition).map(([name, rpc]) => [
    name,
    rpc.responseStream ? () => failingStream : () => Promise.reject(error()),
  ]);
  const extra = alsoUnary.map((name) => [name, () => Promise.reject(error())]);
  return Object.fromEntries([...methods, ...extra]) as Api;
}

/**
 * Stands in for the agent link when it cannot exist (no mTLS certificates configured): every
 * call fails, honestly, with UNAVAILABLE and the reason, so routes answer 503 and the state
 * machine shows 'onbereikbaar' — never "stopped".
 */
export function createUnavailableAgentClient(reason: string): AgentClient {
  const since = new Date().toISOString();
  const error = (): AgentError => new AgentError(grpc.status.UNAVAILABLE, reason);
  return {
    info: () => Promise.reject(error()),
    status: () => ({ state: 'unreachable', since, lastError: reason }),
    containers: failingApi<AgentClient['containers']>(ContainerServiceService, error),
    proxy: failingApi<AgentClient['proxy']>(ProxyServiceService, error),
    ssh: failingApi<AgentClient['ssh']>(SshAccessServiceService, error),
    databases: failingApi<AgentClient['databases']>(DatabaseServiceService, error),
    vpn: failingApi<AgentClient['vpn']>(VpnServiceService, error),
    screenshots: failingApi<AgentClient['screenshots']>(ScreenshotServiceService, error),
    hostStats: failingApi<AgentClient['hostStats']>(HostStatsServiceService, error),
    containerStats: failingApi<AgentClient['containerStats']>(ContainerStatsServiceService, error),
    deploys: failingApi<AgentClient['deploys'], 'createDeployKey'>(DeployServiceService, error, ['createDeployKey']),
    start: () => undefined,
    close: () => undefined,
  };
}
