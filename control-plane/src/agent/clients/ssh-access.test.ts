import type { SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { describe, expect, it } from 'vitest';
import type { AgentCallOptions } from '../call-options.ts';
import type { UnaryCall } from '../grpc-unary.ts';
import { createSshAccessClient } from './ssh-access.ts';

const deadlines = { call: 5_000, hostChange: 30_000, create: 120_000, pull: 600_000, deploy: 600_000 };

/** The client over a unary caller that records each RPC's options and answers `response`. */
function recording(response: unknown): { calls: Array<{ rpc: string; options: AgentCallOptions | undefined }>; unary: UnaryCall } {
  const calls: Array<{ rpc: string; options: AgentCallOptions | undefined }> = [];
  const unary = (async (rpc: string, _invoke: unknown, options?: AgentCallOptions) => {
    calls.push({ rpc, options });
    return response;
  }) as UnaryCall;
  return { calls, unary };
}

describe('the SSH access client', () => {
  it('gives the calls that change a container (keys written, sessions ended by exec) the host-change deadline, not the quick one', async () => {
    const { calls, unary } = recording({ access: { host: 'dev1', port: 2222, user: 'student', keyCount: 1 }, containerRunning: true, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 0 });
    const ssh = createSshAccessClient({} as SshAccessServiceClient, unary, deadlines);
    await ssh.setAuthorizedKeys(7, [{ publicKey: 'ssh-ed25519 AAAA', userId: 1 }]);
    await ssh.endSshSessions(7, [1]);
    await ssh.getSshAccess(7);
    expect(calls.map((call) => [call.rpc, call.options?.deadlineMs])).toEqual([
      ['SetAuthorizedKeys', 30_000],
      ['EndSshSessions', 30_000],
      ['GetSshAccess', undefined],
    ]);
  });
});
