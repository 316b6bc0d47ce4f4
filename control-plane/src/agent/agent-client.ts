import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type GetInfoResponse, InfoServiceClient } from '@devplein/proto/info';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { toAgentError } from './agent-error.ts';
import type { BackoffPolicy } from './backoff.ts';
import {
  type AgentInfoView,
  type AgentStatus,
  AgentHealthMonitor,
  type CapabilityView,
  type MonitorClock,
} from './health-monitor.ts';

export { AgentError, type AgentErrorCode } from './agent-error.ts';
export type { AgentInfoView, AgentStatus, CapabilityView } from './health-monitor.ts';

/** Metadata key of the request id that follows a request across the gRPC hop. */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

export interface AgentClientOptions {
  /** host:port of the agent; use a name in its certificate's SAN, e.g. `localhost:7443`. */
  address: string;
  caPem: Buffer;
  certPem: Buffer;
  keyPem: Buffer;
  /** Deadline of every call (default 5000 ms). */
  deadlineMs?: number;
  logger: Logger;
  /** Pause between health checks while the agent answers (default 5000 ms). */
  monitorIntervalMs?: number;
  /** Pause between health checks while it does not (default 500 ms doubling up to 10 s). */
  backoff?: Partial<BackoffPolicy>;
  /** For tests: a fake clock for the health monitor. */
  clock?: MonitorClock;
}

/** Per-call options. */
export interface AgentCallOptions {
  /** Request id sent as `x-request-id` (a new one when absent), so both logs show one id. */
  requestId?: string;
  deadlineMs?: number;
}

/** The control plane's side of the agent link (one per agent). */
export interface AgentClient {
  /** InfoService.GetInfo; rejects with AgentError. Also updates status(). */
  info(options?: AgentCallOptions): Promise<AgentInfoView>;
  /** Link state as last seen by the health monitor or a call. */
  status(): AgentStatus;
  /** Starts the health monitor (idempotent). */
  start(): void;
  /** Stops the monitor and closes the connection. */
  close(): void;
}

type UnaryInvoker<Response> = (
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Response) => void,
) => grpc.ClientUnaryCall;

const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };

const missingCapability: CapabilityView = { available: false, detail: 'not reported by the agent' };

/** The agent's GetInfo answer as plain JSON (no proto message leaves this module). */
export function presentAgentInfo(response: GetInfoResponse): AgentInfoView {
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

/** Metadata every call carries: the contract version (checked by the agent) and a request id. */
export function callMetadata(requestId: string = randomUUID()): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  metadata.set(REQUEST_ID_METADATA_KEY, requestId);
  return metadata;
}

/**
 * Connects to a host agent over gRPC with mutual TLS. Every call has a deadline and sends the
 * contract version and a request id; failures become AgentError. The channel reconnects by
 * itself (its reconnect backoff is capped like the monitor's), so an agent that comes back is
 * used again without a new client.
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const backoff: BackoffPolicy = { ...defaultBackoff, ...options.backoff };
  const logger = options.logger.child({ agentAddress: options.address });
  const credentials = grpc.credentials.createSsl(options.caPem, options.keyPem, options.certPem);
  const infoClient = new InfoServiceClient(options.address, credentials, {
    'grpc.initial_reconnect_backoff_ms': Math.min(backoff.initialMs, 1_000),
    'grpc.max_reconnect_backoff_ms': backoff.maxMs,
  });

  function unary<Response>(rpc: string, invoke: UnaryInvoker<Response>, callOptions: AgentCallOptions = {}): Promise<Response> {
    const requestId = callOptions.requestId ?? randomUUID();
    const deadline = new Date(Date.now() + (callOptions.deadlineMs ?? deadlineMs));
    return new Promise((resolve, reject) => {
      invoke(callMetadata(requestId), { deadline }, (error, response) => {
        if (error) {
          const agentError = toAgentError(error, rpc);
          logger.debug({ rpc, requestId, code: agentError.code, details: agentError.details }, 'agent call failed');
          reject(agentError);
        } else {
          resolve(response);
        }
      });
    });
  }

  const getInfo = async (callOptions?: AgentCallOptions): Promise<AgentInfoView> =>
    presentAgentInfo(await unary<GetInfoResponse>('GetInfo', (md, opts, cb) => infoClient.getInfo({}, md, opts, cb), callOptions));

  const monitor = new AgentHealthMonitor({
    probe: () => getInfo(),
    intervalMs: options.monitorIntervalMs ?? 5_000,
    backoff,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });

  return {
    async info(callOptions) {
      try {
        const info = await getInfo(callOptions);
        monitor.recordSuccess(info);
        return info;
      } catch (error) {
        monitor.recordFailure(error);
        throw error;
      }
    },
    status: () => monitor.status(),
    start: () => monitor.start(),
    close() {
      monitor.stop();
      infoClient.close();
    },
  };
}
