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
      create: fail,
      changeState: fail,
      remove: fail,
      list: fail,
      logs: fail,
      followLogs: () => failingStream(error),
      pullImage: () => failingStream(error),
      watchEvents: () => failingStream(error),
      wordpressPasswordReset: fail,
    },
    proxy: { upsertRoute: fail, removeRoute: fail, listRoutes: fail },
    ssh: { setAuthorizedKeys: fail, getAccess: fail, endSessions: fail },
    databases: { create: fail, drop: fail, list: fail, lockAccounts: fail, unlockAccounts: fail },
    vpn: { createPeer: fail, removePeer: fail, listPeers: fail, serverInfo: fail },
    screenshots: { capture: fail },
    start: () => undefined,
    close: () => undefined,
  };
}
