import type { DeployCommitView, DockerDeploySummary, ProjectDeploy, ProjectDeployDetail, ProjectDeployPanel, DeployAuth } from '@devplein/contract/deploys';
import type { DeployRow, DeployRowWithLog, DeploySummaryRow } from '../queries/deploys.ts';

const iso = (value: Date | string | null): string | null => (value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString());

/** The commit of a row (null until the fetch got one, or for a roll back the commit asked for). */
export function presentDeployCommit(row: Pick<DeployRow, 'commit_hash' | 'commit_subject' | 'commit_author' | 'committed_at' | 'created_at'>): DeployCommitView | null {
  if (!row.commit_hash) return null;
  return {
    hash: row.commit_hash,
    shortHash: row.commit_hash.slice(0, 7),
    subject: row.commit_subject ?? '',
    author: row.commit_author ?? '',
    time: iso(row.committed_at) ?? (iso(row.created_at) as string),
  };
}

export function presentDeploy(row: DeployRow): ProjectDeploy {
  return {
    id: row.id,
    projectId: row.project_id,
    status: row.status,
    trigger: row.trigger,
    branch: row.branch,
    commit: presentDeployCommit(row),
    requestedBy: row.requested_by === null ? null : { id: row.requested_by, name: row.requested_by_name ?? '' },
    failure: row.failure,
    message: row.message,
    createdAt: iso(row.created_at) as string,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

export function presentDeployDetail(row: DeployRowWithLog): ProjectDeployDetail {
  return { ...presentDeploy(row), log: row.log };
}

/** A card's summary: null when the project cannot be deployed (no repository, or no web root). */
export function presentDeploySummary(
  project: { repro: string | null; branch: string | null; webRoot: string | null },
  summary: DeploySummaryRow | undefined,
): DockerDeploySummary | null {
  if (!project.repro || !project.webRoot) return null;
  const notice = summary?.webhookNotice ?? null;
  return {
    repository: project.repro,
    branch: project.branch,
    current: summary?.current ? presentDeploy(summary.current) : null,
    latest: summary?.latest ? presentDeploy(summary.latest) : null,
    tokenMissing: summary?.tokenMissing ?? false,
    webhookNotice: notice === null ? null : { reason: notice.reason, since: iso(notice.since) as string },
  };
}

export function presentDeployPanel(input: {
  repository: string;
  branch: string | null;
  auth: DeployAuth;
  hasToken: boolean;
  token: { storedBy: { id: number; name: string }; storedAt: Date | string } | null;
  deploys: DeployRow[];
  webhook: { url: string; secret: string };
  deployKey: { publicKey: string; fingerprint: string } | null;
  deployKeyStatus: ProjectDeployPanel['deployKeyStatus'];
}): ProjectDeployPanel {
  const token = input.token === null ? null : { storedBy: input.token.storedBy, storedAt: iso(input.token.storedAt) as string };
  return { ...input, token, deploys: input.deploys.map(presentDeploy) };
}
