import type { GetInfoResponse } from '@devplein/proto/info';
import type { AgentInfoView, CapabilityView } from './health-monitor.ts';

const missingCapability: CapabilityView = { available: false, detail: 'not reported by the agent' };

/** The agent's GetInfo answer as plain JSON (no proto message leaves the agent client). */
export function agentInfoViewOf(response: GetInfoResponse): AgentInfoView {
  const capability = (value: CapabilityView | undefined): CapabilityView =>
    value ? { available: value.available, detail: value.detail } : { ...missingCapability };
  const capabilities = response.capabilities;
  return {
    agentVersion: response.agentVersion,
    contractVersion: response.contractVersion,
    hostname: response.hostname,
    capabilities: {
      docker: capability(capabilities?.docker),
      proxy: capability(capabilities?.proxy),
      mysql: capability(capabilities?.mysql),
      chromium: capability(capabilities?.chromium),
      wireguard: capability(capabilities?.wireguard),
    },
  };
}
