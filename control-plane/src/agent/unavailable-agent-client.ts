import * as grpc from '@grpc/grpc-js';
import { AgentError } from './agent-error.ts';
import type { AgentClient } from './agent-client.ts';

/** An async iterable whose first next() fails with `error`. */
function failingStream<View>(error: () => AgentError): AsyncIterable<View> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error()) }),
  };
}

/**
 * Stands in for the agent link when it cannot exist (no mTLS certificates configured): every
 * call fails, honestly, with UNAVAILABLE and the reason, so routes answer 503 and the state
 * machine shows 'onbereikbaar' — never "stopped".
 */
export function createUnavailableAgentClient(reason: string): AgentClient {
  const since = new Date().toISOString();
  const error = (): AgentError => new AgentError(grpc.status.UNAVAILABLE, reason);
  const fail = (): Promise<never> => Promise.reject(error());
  return {
    info: fail,
    status: () => ({ state: 'unreachable', since, lastError: reason }),
    containers: {
      createContainer: fail,
      changeContainerState: fail,
      removeContainer: fail,
      listContainers: fail,
      getContainerLogs: fail,
      followContainerLogs: () => failingStream(error),
      pullImage: () => failingStream(error),
      watchContainerEvents: () => failingStream(error),
      execWordpressPasswordReset: fail,
    },
    proxy: { upsertRoute: fail, removeRoute: fail, listRoutes: fail },
    ssh: { setAuthorizedKeys: fail, getSshAccess: fail, endSshSessions: fail },
    databases: { createDatabase: fail, dropDatabase: fail, listDatabases: fail, lockAccounts: fail, unlockAccounts: fail },
    vpn: { createPeer: fail, removePeer: fail, listPeers: fail, getServerInfo: fail },
    screenshots: { capture: fail },
    hostStats: { getHostStats: fail },
    containerStats: { getContainerStats: fail, listContainerStats: fail, watchContainerStats: () => failingStream(error) },
    deploys: { deployRepository: () => failingStream(error), getDeployKey: fail, createDeployKey: fail },
    start: () => undefined,
    close: () => undefined,
  };
}
