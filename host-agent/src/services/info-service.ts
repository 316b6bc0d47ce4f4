import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type GetInfoResponse,
  type HealthResponse,
  HealthStatus,
  InfoServiceService,
  type InfoServiceServer,
} from '@devplein/proto/info';
import type { CapabilityReport } from '../capabilities.ts';
import { grpcReply } from './grpc-reply.ts';

export interface InfoServiceOptions {
  agentVersion: string;
  contractVersion: string;
  hostname: string;
  startedAt: Date;
  /** Checks the host's facilities; called on every GetInfo (it is cheap and time-boxed). */
  probeCapabilities: () => Promise<CapabilityReport>;
  /** True once the agent is shutting down: Health then says NOT_SERVING. */
  isShuttingDown: () => boolean;
  logger: Logger;
}

/** InfoService: who this agent is and what its host offers. Implemented for real. */
export class InfoServiceImpl {
  constructor(private readonly options: InfoServiceOptions) {}

  async getInfo(): Promise<GetInfoResponse> {
    const { agentVersion, contractVersion, hostname, startedAt } = this.options;
    return { agentVersion, contractVersion, hostname, startedAt, capabilities: await this.options.probeCapabilities() };
  }

  health(): HealthResponse {
    return { status: this.options.isShuttingDown() ? HealthStatus.HEALTH_STATUS_NOT_SERVING : HealthStatus.HEALTH_STATUS_SERVING };
  }

  addToServer(server: grpc.Server): void {
    const { reply } = grpcReply({ logger: this.options.logger, internalDetails: () => 'could not collect the agent info' });
    const handlers: InfoServiceServer = {
      getInfo: (call, callback) => reply(call, callback, () => this.getInfo(), 'GetInfo'),
      health: (_call, callback) => callback(null, this.health()),
    };
    server.addService(InfoServiceService, handlers);
  }
}
