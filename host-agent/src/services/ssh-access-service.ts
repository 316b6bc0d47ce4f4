import type * as grpc from '@grpc/grpc-js';
import { SshAccessServiceService, type SshAccessServiceServer } from '@devplein/proto/ssh_access';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'SSH access (authorized keys in containers)';
const pending = (method: keyof typeof SshAccessServiceService) => ({ path: SshAccessServiceService[method].path, capability });

/** SshAccessService: SSH keys and ports of project containers. Every RPC answers UNIMPLEMENTED for now. */
export class SshAccessServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: SshAccessServiceServer = {
      setAuthorizedKeys: unimplementedUnary(pending('setAuthorizedKeys')),
      getSshAccess: unimplementedUnary(pending('getSshAccess')),
    };
    server.addService(SshAccessServiceService, handlers);
  }
}
