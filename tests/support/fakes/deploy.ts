/**
 * The fake DeployService: deploy keys per project, and deploys that stream a scripted run
 * (`deployScripts` per project, else `deployScript`), can be held at a gate (`holdDeploys`) and
 * are recorded with their requests in `deployRequests`.
 */
import * as grpc from '@grpc/grpc-js';
import { DeployOutcome, DeployPhase, type DeployServiceServer } from '@devplein/proto/deploy';
import { type FakeRpc, failStream, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

/** What the fake DeployService streams for a deploy: progress lines, then its outcome. */
export interface FakeDeployScript {
  lines: Array<{ phase: DeployPhase; line: string; percent?: number }>;
  outcome: DeployOutcome;
  /** The finished message (default: a Dutch sentence per outcome). */
  message?: string;
  restarted?: boolean;
  /** Answer with this gRPC error instead of a stream (after recording the request). */
  rpcError?: { code: grpc.status; details: string };
}

/** The default deploy: a fetch with progress, a copy and a swap, deployed. */
export const DEFAULT_DEPLOY_SCRIPT: FakeDeployScript = {
  lines: [
    { phase: DeployPhase.DEPLOY_PHASE_FETCH, line: 'Ophalen: 50% (1/2)', percent: 50 },
    { phase: DeployPhase.DEPLOY_PHASE_FETCH, line: 'Ophalen: 100% (2/2)', percent: 100 },
    { phase: DeployPhase.DEPLOY_PHASE_COPY, line: 'Kopiëren naar de container: 3 bestanden' },
    { phase: DeployPhase.DEPLOY_PHASE_SWAP, line: 'Nieuwe versie staat online.' },
  ],
  outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED,
};

/** The public deploy key GetDeployKey answers for a project. */
export const deployKeyOf = (projectId: number): string =>
  `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeDeployKeyForDevpleinTests000000000000000 devplein-project-${projectId}@fake-agent`;

export interface DeployServiceContext {
  state: Pick<
    FakeAgentState,
    'containers' | 'deployKeysMade' | 'deployKeyFingerprint' | 'deployRequests' | 'deployScript' | 'deployScripts' | 'headCommit' | 'holdDeploys' | 'deploysRunning'
  >;
  rpc: FakeRpc;
  /** The releases of the deploys waiting at the gate; the agent's, so releaseDeploys() reaches them. */
  heldDeploys: Set<() => void>;
}

export function deployService({ state, rpc, heldDeploys }: DeployServiceContext): DeployServiceServer {
  return {
    // As the agent: made at the first ask without existing_only; with it, only a key made before (contract 1.8.0).
    getDeployKey: rpc.unary('getDeployKey', (request) => {
      if (request.existingOnly && !state.deployKeysMade.has(request.projectId)) return { publicKey: '', fingerprint: '' };
      state.deployKeysMade.add(request.projectId);
      return { publicKey: deployKeyOf(request.projectId), fingerprint: state.deployKeyFingerprint };
    }),
    deployRepository: (call) => {
      void rpc.gate('deployRepository', call.request).then(async (failure) => {
        if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
        const request = call.request;
        state.deployRequests.push(request);
        const script = state.deployScripts.get(request.projectId) ?? state.deployScript;
        if (script.rpcError) return failStream(call, Object.assign(new Error(script.rpcError.details), serviceError(script.rpcError.code, script.rpcError.details)));
        const container = [...state.containers.values()].find((each) => each.projectId === request.projectId);
        if (!container) return failStream(call, Object.assign(new Error('no container'), serviceError(grpc.status.NOT_FOUND, `project ${request.projectId} has no container`)));
        if (container.state !== 'running') return failStream(call, Object.assign(new Error('not running'), serviceError(grpc.status.FAILED_PRECONDITION, `container ${container.name} is ${container.state}`)));
        let cancelled = false;
        call.on('cancelled', () => {
          cancelled = true;
        });
        state.deploysRunning += 1;
        try {
          for (const line of script.lines) {
            if (cancelled) return;
            call.write({ event: { $case: 'progress', value: { phase: line.phase, line: line.line, percent: line.percent ?? -1 } } });
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          if (state.holdDeploys) {
            await new Promise<void>((resolve) => {
              heldDeploys.add(resolve);
              call.on('cancelled', () => {
                heldDeploys.delete(resolve);
                resolve();
              });
            });
          }
          if (cancelled) return;
          const deployed = script.outcome === DeployOutcome.DEPLOY_OUTCOME_DEPLOYED;
          const commit = request.commit ? { ...state.headCommit, hash: request.commit, subject: `Versie ${request.commit.slice(0, 7)}` } : state.headCommit;
          call.write({
            event: {
              $case: 'finished',
              value: {
                outcome: script.outcome,
                message: script.message ?? (deployed ? 'De nieuwe versie staat online.' : 'Het ophalen van de repository is mislukt.'),
                commit: script.outcome === DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED ? undefined : commit,
                files: deployed ? 3 : 0,
                bytes: deployed ? 1_234 : 0,
                durationMs: 42,
                restarted: script.restarted ?? false,
              },
            },
          });
          call.end();
        } finally {
          state.deploysRunning -= 1;
        }
      });
    },
  };
}
