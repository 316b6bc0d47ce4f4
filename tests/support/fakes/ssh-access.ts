/**
 * The fake SshAccessService: a project's authorized keys (in the agent's `authorizedKeys`), its SSH
 * address (the container's ssh-port label) and ending the sessions of users who leave (the open
 * sessions a test put in `sshSessions`).
 */
import * as grpc from '@grpc/grpc-js';
import type { SshAccessServiceServer } from '@devplein/proto/ssh_access';
import { type FakeRpc, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface SshAccessServiceContext {
  state: Pick<FakeAgentState, 'containers' | 'authorizedKeys' | 'sshSessions'>;
  rpc: FakeRpc;
  /** The host name GetSshAccess reports. */
  sshHost: string;
}

export function sshAccessService({ state, rpc, sshHost }: SshAccessServiceContext): SshAccessServiceServer {
  const access = (projectId: number) => {
    const container = [...state.containers.values()].find((candidate) => candidate.projectId === projectId);
    if (!container) return serviceError(grpc.status.NOT_FOUND, 'no container for project');
    if (container.labels['devplein.ssh'] !== 'true') return serviceError(grpc.status.FAILED_PRECONDITION, 'image has no ssh');
    return {
      access: {
        host: sshHost,
        port: Number(container.labels['devplein.ssh-port']),
        user: 'student',
        keyCount: state.authorizedKeys.get(projectId)?.length ?? 0,
      },
    };
  };
  return {
    setAuthorizedKeys: rpc.unary('setAuthorizedKeys', (request) => {
      const answer = access(request.projectId);
      if ('code' in answer) return answer;
      state.authorizedKeys.set(request.projectId, request.keys.map((key) => ({ publicKey: key.publicKey, userId: Number(key.userId) })));
      return access(request.projectId);
    }),
    getSshAccess: rpc.unary('getSshAccess', (request) => access(request.projectId)),
    endSshSessions: rpc.unary('endSshSessions', (request) => {
      const answer = access(request.projectId);
      if ('code' in answer) return answer;
      const container = [...state.containers.values()].find((candidate) => candidate.projectId === request.projectId);
      if (container?.state === 'paused') return serviceError(grpc.status.FAILED_PRECONDITION, 'container is paused');
      if (container?.state !== 'running') return { containerRunning: false, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 0 };
      const leaving = new Set(request.userIds.map(Number));
      const open = state.sshSessions.get(request.projectId) ?? [];
      const kept = open.filter((userId) => userId !== 0 && !leaving.has(userId));
      state.sshSessions.set(request.projectId, kept);
      return {
        containerRunning: true,
        endedSessions: open.filter((userId) => leaving.has(userId)).length,
        endedUnattributedSessions: open.filter((userId) => userId === 0).length,
        keptSessions: kept.length,
      };
    }),
  };
}
