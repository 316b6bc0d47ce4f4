/** The fake InfoService: a fixed agent identity (Docker and the proxy available) that is always serving. */
import { HealthStatus, type InfoServiceServer } from '@devplein/proto/info';
import type { FakeRpc } from './rpc.ts';

export interface InfoServiceContext {
  rpc: FakeRpc;
}

export function infoService({ rpc }: InfoServiceContext): InfoServiceServer {
  return {
    getInfo: rpc.unary('getInfo', () => ({
      agentVersion: '0.0.0-fake',
      contractVersion: '1.0.0',
      hostname: 'fake-agent',
      startedAt: new Date(),
      capabilities: {
        docker: { available: true, detail: 'fake' },
        proxy: { available: true, detail: 'fake' },
        mysql: { available: false, detail: 'fake' },
        chromium: { available: false, detail: 'fake' },
        wireguard: { available: false, detail: 'fake' },
      },
    })),
    health: rpc.unary('health', () => ({ status: HealthStatus.HEALTH_STATUS_SERVING })),
  };
}
