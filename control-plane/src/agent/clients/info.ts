import type { GetInfoResponse, InfoServiceClient } from '@devplein/proto/info';
import { agentInfoViewOf } from '../info-views.ts';
import type { UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';
import type { AgentInfoView } from '../health-monitor.ts';

/** InfoService over the link: who the agent is and what its host offers. */
export interface InfoApi {
  getInfo(options?: AgentCallOptions): Promise<AgentInfoView>;
}

export function createInfoClient(client: InfoServiceClient, unary: UnaryCall): InfoApi {
  return {
    getInfo: async (callOptions) => agentInfoViewOf(await unary<GetInfoResponse>('GetInfo', (md, opts, cb) => client.getInfo({}, md, opts, cb), callOptions)),
  };
}
