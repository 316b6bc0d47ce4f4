import type { EndSshSessionsResponse, GetSshAccessResponse, SetAuthorizedKeysResponse, SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { sshAccessView, type SshAccessView, type EndedSshSessionsView } from '../container-views.ts';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';

/** SshAccessService: the members' keys in a project's container, where to log in, ending sessions. */
export interface SshApi {
  setAuthorizedKeys(projectId: number, keys: Array<{ publicKey: string; userId: number }>, options?: AgentCallOptions): Promise<SshAccessView>;
  getSshAccess(projectId: number, options?: AgentCallOptions): Promise<SshAccessView>;
  /** EndSshSessions (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  endSshSessions(projectId: number, userIds: number[], options?: AgentCallOptions): Promise<EndedSshSessionsView>;
}

/** SshAccessService over the link: the members' keys, where to log in, ending sessions. */
export function createSshAccessClient(client: SshAccessServiceClient, unary: UnaryCall, deadlines: AgentDeadlines): SshApi {
  return {
    async setAuthorizedKeys(projectId, keys, callOptions) {
      const request = { projectId, keys: keys.map((key) => ({ publicKey: key.publicKey, userId: key.userId })) };
      // A host change: the agent writes the keys into the container by exec, slow on a busy dev server.
      const response = await unary<SetAuthorizedKeysResponse>('SetAuthorizedKeys', (md, opts, cb) => client.setAuthorizedKeys(request, md, opts, cb), {
        deadlineMs: deadlines.hostChange,
        ...callOptions,
      });
      return sshAccessView(response.access);
    },
    async getSshAccess(projectId, callOptions) {
      const response = await unary<GetSshAccessResponse>('GetSshAccess', (md, opts, cb) => client.getSshAccess({ projectId }, md, opts, cb), callOptions);
      return sshAccessView(response.access);
    },
    async endSshSessions(projectId, userIds, callOptions) {
      const response = await unary<EndSshSessionsResponse>(
        'EndSshSessions',
        (md, opts, cb) => client.endSshSessions({ projectId, userIds: [...userIds] }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return {
        containerRunning: response.containerRunning,
        ended: response.endedSessions,
        endedUnattributed: response.endedUnattributedSessions,
        kept: response.keptSessions,
      };
    },
  };
}
