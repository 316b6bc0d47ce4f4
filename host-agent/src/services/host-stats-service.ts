import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type GetHostStatsResponse, HostStatsServiceService, type HostStatsServiceServer } from '@devplein/proto/host_stats';
import { probeProxy } from '../capabilities.ts';
import type { DockerEngine } from '../drivers/docker/engine.ts';
import {
  browserPresence,
  certificateExpiry,
  cpuAndMemory,
  diskUsage,
  dockerFacts,
  lastBackup,
  mysqlPing,
  type PartState,
  wireguardInterface,
  withTimeout,
  describeError,
} from '../drivers/host/host-probes.ts';
import { grpcReply } from './grpc-reply.ts';

/** Where Docker keeps its data when the engine does not say (it is down). */
const DEFAULT_DOCKER_ROOT = '/var/lib/docker';

export interface HostStatsServiceOptions {
  agentVersion: string;
  contractVersion: string;
  hostname: string;
  startedAt: Date;
  docker: DockerEngine;
  caddyAdminUrl: string;
  mysqlUrl: string | undefined;
  chromiumPath: string;
  /** 127.0.0.1:PORT of the browser server, when the screenshot browser runs as its own unit. */
  browserServer: string | undefined;
  wireguardInterface: string;
  /** The agent's data dir (its disk is one of the measured mounts). */
  dataDir: string;
  /** The agent's own mTLS server certificate (PEM). */
  certPath: string;
  /** Time limit of each probe. */
  probeTimeoutMs: number;
  logger: Logger;
}

/** A probe that itself failed unexpectedly is that part broken, never the whole call. */
async function part(probe: () => Promise<PartState>, timeoutMs: number): Promise<PartState> {
  try {
    // The outer limit is a safety net: each probe bounds its own steps.
    return await withTimeout(probe(), timeoutMs * 3);
  } catch (error) {
    return { ok: false, detail: describeError(error) };
  }
}

/**
 * HostStatsService: the host's parts, disks, containers, certificate and load in one answer.
 * Every probe runs in parallel with its own time limit; a broken part is reported in the answer.
 */
export class HostStatsServiceImpl {
  constructor(private readonly options: HostStatsServiceOptions) {}

  async getHostStats(): Promise<GetHostStatsResponse> {
    const o = this.options;
    const timeoutMs = o.probeTimeoutMs;
    const dockerPart = dockerFacts(o.docker, timeoutMs);
    const [docker, proxy, mysql, browser, wireguard, certificate, agentDisk, backup] = await Promise.all([
      dockerPart,
      part(async () => {
        const state = await probeProxy(o.caddyAdminUrl, timeoutMs);
        return { ok: state.available, detail: state.available ? state.detail : state.detail.replace('not reachable', 'antwoordt niet') };
      }, timeoutMs),
      part(() => mysqlPing(o.mysqlUrl, timeoutMs), timeoutMs),
      part(() => browserPresence({ server: o.browserServer, chromiumPath: o.chromiumPath, timeoutMs }), timeoutMs),
      part(() => wireguardInterface(o.wireguardInterface, timeoutMs), timeoutMs),
      certificateExpiry(o.certPath),
      diskUsage('agent', o.dataDir, timeoutMs),
      lastBackup(o.dataDir),
    ]);
    const dockerDisk = await diskUsage('docker', docker.dataRoot ?? DEFAULT_DOCKER_ROOT, timeoutMs);
    const { cpu, memory } = cpuAndMemory();
    return {
      agentVersion: o.agentVersion,
      contractVersion: o.contractVersion,
      hostname: o.hostname,
      collectedAt: new Date(),
      startedAt: o.startedAt,
      docker: docker.health,
      proxy,
      mysql,
      browser,
      wireguard,
      disks: [dockerDisk, agentDisk],
      containers: docker.containers,
      certificate: { ok: certificate.ok, notAfter: certificate.notAfter, detail: certificate.detail },
      cpu,
      memory,
      lastBackup: backup,
    };
  }

  addToServer(server: grpc.Server): void {
    const { reply } = grpcReply({ logger: this.options.logger, internalDetails: () => 'could not collect the host stats' });
    const handlers: HostStatsServiceServer = {
      getHostStats: (call, callback) => reply(call, callback, () => this.getHostStats(), 'GetHostStats'),
    };
    server.addService(HostStatsServiceService, handlers);
  }
}
