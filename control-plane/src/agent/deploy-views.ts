import { DeployOutcome, DeployPhase, type DeployCommit, type DeployRepositoryResponse } from '@devplein/proto/deploy';
import type { DeployFailure, DeployPhaseName } from '@devplein/contract/deploys';

/** What a deploy is asked to do (DeployRepositoryRequest in the control plane's words). */
export interface DeployInput {
  projectId: number;
  /** The control plane's id of the deploy (project_deploys.id). */
  deployId: number;
  address: string;
  /** null: the repository's default branch. */
  branch: string | null;
  /** Full hash to deploy instead of the branch's newest commit (a roll back); null: the newest. */
  commit: string | null;
  target: { webRoot: string; afterUpdate: string | null; keepPaths: readonly string[]; buildCommand: string | null; buildOutput: string | null };
  allowedHosts: readonly string[];
  allowHttp: boolean;
  credentials: { kind: 'none' } | { kind: 'deploy-key' } | { kind: 'token'; token: string };
}

/** A commit as the agent reported it. */
export interface DeployCommitInfo {
  hash: string;
  subject: string;
  author: string;
  time: Date | null;
}

/** One message of the DeployRepository stream: a log line, or the end. */
export type DeployStreamEvent =
  | { kind: 'progress'; phase: DeployPhaseName; text: string; percent: number | null }
  | {
      kind: 'finished';
      /** null: deployed; otherwise why it failed (the old site stayed). */
      failure: DeployFailure | null;
      message: string;
      commit: DeployCommitInfo | null;
      restarted: boolean;
    };

const PHASES: Partial<Record<DeployPhase, DeployPhaseName>> = {
  [DeployPhase.DEPLOY_PHASE_FETCH]: 'fetch',
  [DeployPhase.DEPLOY_PHASE_BUILD]: 'build',
  [DeployPhase.DEPLOY_PHASE_COPY]: 'copy',
  [DeployPhase.DEPLOY_PHASE_AFTER_UPDATE]: 'after-update',
  [DeployPhase.DEPLOY_PHASE_SWAP]: 'swap',
};

const FAILURES: Partial<Record<DeployOutcome, DeployFailure>> = {
  [DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED]: 'fetch-failed',
  [DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED]: 'auth-failed',
  [DeployOutcome.DEPLOY_OUTCOME_TOO_LARGE]: 'too-large',
  [DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT]: 'timed-out',
  [DeployOutcome.DEPLOY_OUTCOME_BUILD_FAILED]: 'build-failed',
  [DeployOutcome.DEPLOY_OUTCOME_AFTER_UPDATE_FAILED]: 'after-update-failed',
  [DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED]: 'copy-failed',
};

const commitInfo = (commit: DeployCommit | undefined): DeployCommitInfo | null =>
  commit && /^[0-9a-f]{40}$/.test(commit.hash) ? { hash: commit.hash, subject: commit.subject, author: commit.author, time: commit.time ?? null } : null;

/**
 * One stream message as a view (null: an empty message). An outcome this control plane does not
 * know (a newer agent) counts as a failed copy: the agent promised the old site stays for
 * every outcome but DEPLOYED.
 */
export function deployEventView(message: DeployRepositoryResponse): DeployStreamEvent | null {
  const event = message.event;
  if (!event) return null;
  if (event.$case === 'progress') {
    const { phase, line, percent } = event.value;
    return { kind: 'progress', phase: PHASES[phase] ?? 'fetch', text: line, percent: percent >= 0 && percent <= 100 ? percent : null };
  }
  const finished = event.value;
  const deployed = finished.outcome === DeployOutcome.DEPLOY_OUTCOME_DEPLOYED;
  return {
    kind: 'finished',
    failure: deployed ? null : (FAILURES[finished.outcome] ?? 'copy-failed'),
    message: finished.message,
    commit: commitInfo(finished.commit),
    restarted: finished.restarted,
  };
}
