import type { DeployRepositoryRequest, DeployRepositoryResponse, DeployServiceClient, GetDeployKeyResponse } from '@devplein/proto/deploy';
import { deployEventView, type DeployInput, type DeployStreamEvent } from '../deploy-views.ts';
import { type StreamCall, withoutNulls } from '../grpc-stream.ts';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions, StreamCallOptions } from '../call-options.ts';

/**
 * DeployService (contract 1.7.0): a git deploy as a stream of log lines ending with one
 * 'finished' event, and the project's deploy key (the private half stays on the dev server).
 * An agent before 1.7.0 answers UNIMPLEMENTED.
 */
export interface DeployApi {
  deployRepository(input: DeployInput, options?: StreamCallOptions): AsyncIterable<DeployStreamEvent>;
  /**
   * The deploy key the project has, or null when it has none yet; nothing is made (contract
   * 1.8.0 `existing_only`). An agent before 1.8.0 ignores that and makes the key (as 1.7.0).
   */
  getDeployKey(projectId: number, options?: AgentCallOptions): Promise<{ publicKey: string; fingerprint: string } | null>;
  /** The project's deploy key, made when it has none (an explicit request: POST …/deploy-key). */
  createDeployKey(projectId: number, options?: AgentCallOptions): Promise<{ publicKey: string; fingerprint: string }>;
}

/** The request of one deploy, as the contract has it. */
export function deployRequest(input: DeployInput): DeployRepositoryRequest {
  const { target, credentials } = input;
  return {
    projectId: input.projectId,
    deployId: String(input.deployId),
    address: input.address,
    branch: input.branch ?? '',
    commit: input.commit ?? '',
    target: {
      webRoot: target.webRoot,
      afterUpdate: target.afterUpdate ?? '',
      keepPaths: [...target.keepPaths],
      buildCommand: target.buildCommand ?? '',
      buildOutput: target.buildOutput ?? '',
    },
    allowedHosts: [...input.allowedHosts],
    allowHttp: input.allowHttp,
    credentials:
      credentials.kind === 'deploy-key'
        ? { $case: 'useDeployKey', value: true }
        : credentials.kind === 'token'
          ? { $case: 'httpsToken', value: credentials.token }
          : undefined,
  };
}

/** DeployService over the link (contract 1.7.0): git deploys as a stream, the project's deploy key. */
export function createDeployClient(client: DeployServiceClient, calls: { unary: UnaryCall; stream: StreamCall }, deadlines: AgentDeadlines): DeployApi {
  const { unary, stream } = calls;
  return {
    deployRepository: (input, streamOptions) =>
      withoutNulls(
        stream<DeployRepositoryResponse, DeployStreamEvent | null>(
          'DeployRepository',
          (md, opts) => client.deployRepository(deployRequest(input), md, opts),
          deployEventView,
          { deadlineMs: deadlines.deploy, ...streamOptions },
        ),
      ),
    async getDeployKey(projectId, callOptions) {
      // A read: the key the project has (an empty answer: none yet), nothing made (contract 1.8.0).
      const response = await unary<GetDeployKeyResponse>(
        'GetDeployKey',
        (md, opts, cb) => client.getDeployKey({ projectId, existingOnly: true }, md, opts, cb),
        { deadlineMs: deadlines.call, ...callOptions },
      );
      return response.publicKey ? { publicKey: response.publicKey, fingerprint: response.fingerprint } : null;
    },
    async createDeployKey(projectId, callOptions) {
      const response = await unary<GetDeployKeyResponse>(
        'GetDeployKey',
        (md, opts, cb) => client.getDeployKey({ projectId, existingOnly: false }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { publicKey: response.publicKey, fingerprint: response.fingerprint };
    },
  };
}
