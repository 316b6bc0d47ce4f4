/**
 * The fake HostStatsService: the host's health as the agent's fields describe it (brokenParts,
 * disks, certificate, last backup, load and memory) plus counts of its containers.
 */
import type { GetHostStatsResponse, HostStatsServiceServer, PartHealth } from '@devplein/proto/host_stats';
import type { FakeContainer } from './docker-host.ts';
import type { FakeRpc } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface HostStatsServiceContext {
  state: Pick<FakeAgentState, 'containers' | 'brokenParts' | 'disks' | 'certificateNotAfter' | 'lastBackup' | 'cpu' | 'memory'>;
  rpc: FakeRpc;
}

export function hostStatsService({ state, rpc }: HostStatsServiceContext): HostStatsServiceServer {
  const part = (name: string): PartHealth => {
    const reason = state.brokenParts.get(name);
    return reason === undefined ? { ok: true, detail: `fake ${name}` } : { ok: false, detail: reason };
  };
  const countBy = (containers: FakeContainer[]) => {
    const counts = new Map<string, number>();
    for (const container of containers) counts.set(container.state, (counts.get(container.state) ?? 0) + 1);
    return [...counts].map(([containerState, count]) => ({ state: containerState, count }));
  };
  return {
    getHostStats: rpc.unary('getHostStats', (): GetHostStatsResponse => {
      const all = [...state.containers.values()];
      const managed = all.filter((container) => container.labels['devplein.managed'] === 'true');
      return {
        agentVersion: '0.0.0-fake',
        contractVersion: '1.5.0',
        hostname: 'fake-agent',
        collectedAt: new Date(),
        startedAt: new Date(),
        docker: part('docker'),
        proxy: part('proxy'),
        mysql: part('mysql'),
        browser: part('browser'),
        wireguard: part('wireguard'),
        disks: state.disks,
        containers: { known: true, total: all.length, managed: managed.length, byState: countBy(all), managedByState: countBy(managed) },
        certificate: { ok: true, notAfter: state.certificateNotAfter, detail: 'CN=localhost' },
        lastBackup: state.lastBackup,
        cpu: { ...state.cpu },
        memory: { ...state.memory },
      };
    }),
  };
}
