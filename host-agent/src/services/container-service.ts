import type * as grpc from '@grpc/grpc-js';
import { ContainerServiceService, type ContainerServiceServer } from '@devplein/proto/container';
import { unimplementedServerStream, unimplementedUnary } from './unimplemented.ts';

const capability = 'containers (Docker engine)';
const pending = (method: keyof typeof ContainerServiceService) => ({ path: ContainerServiceService[method].path, capability });

/** ContainerService: project containers on the Docker engine. Every RPC answers UNIMPLEMENTED for now. */
export class ContainerServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: ContainerServiceServer = {
      createContainer: unimplementedUnary(pending('createContainer')),
      changeContainerState: unimplementedUnary(pending('changeContainerState')),
      removeContainer: unimplementedUnary(pending('removeContainer')),
      listContainers: unimplementedUnary(pending('listContainers')),
      getContainerLogs: unimplementedUnary(pending('getContainerLogs')),
      followContainerLogs: unimplementedServerStream(pending('followContainerLogs')),
      pullImage: unimplementedServerStream(pending('pullImage')),
      watchContainerEvents: unimplementedServerStream(pending('watchContainerEvents')),
      execWordpressPasswordReset: unimplementedUnary(pending('execWordpressPasswordReset')),
    };
    server.addService(ContainerServiceService, handlers);
  }
}
