import type { Knex } from 'knex';
import type { DeployTrigger } from '@devplein/contract/deploys';
import { recordAudit } from '../audit/record-audit.ts';

/** Dutch note on a deploy that a newer request replaced before its turn. */
export const SUPERSEDED_MESSAGE = 'Er kwam een nieuwere aanvraag voordat deze aan de beurt was.';

export interface DeployRequest {
  projectId: number;
  trigger: DeployTrigger;
  /** Branch to deploy (null: the repository's default branch). */
  branch: string | null;
  /** The commit asked for: a roll back's (the agent deploys exactly it), or a push's `after` (expected; the fetch records what it got). */
  commit: { hash: string; subject: string | null; author: string | null; time: Date | null } | null;
  /** Who asked (null: a push through the webhook). */
  requestedBy: number | null;
}

export type QueueDecision =
  | { queued: true; deployId: number; superseded: number[] }
  /** A push of the commit the newest deploy already has (queued, running or deployed). */
  | { queued: false; duplicateOf: number };

/**
 * Records a deploy request (the queue's intent) in one transaction with the project's row
 * locked: deploys of the project still waiting are superseded by it, and the request is audited
 * (`project.deploy`, with trigger and commit; never a secret). With `skipSameCommit` (a push) a
 * request for the commit the newest deploy already has (queued, running or deployed) records
 * nothing. The agent is not called here: the queue runs the row after the commit.
 */
export async function queueDeploy(knex: Knex, request: DeployRequest, options: { skipSameCommit?: boolean } = {}): Promise<QueueDecision> {
  return knex.transaction(async (trx) => {
    await trx('projects').where('id', request.projectId).forUpdate().first('id');
    if (options.skipSameCommit && request.commit) {
      const newest = await trx('project_deploys')
        .where('project_id', request.projectId)
        .whereNot('status', 'superseded')
        .orderBy('id', 'desc')
        .first<{ id: number; status: string; commit_hash: string | null } | undefined>('id', 'status', 'commit_hash');
      if (newest && newest.commit_hash === request.commit.hash && ['queued', 'running', 'deployed'].includes(newest.status)) {
        return { queued: false, duplicateOf: Number(newest.id) };
      }
    }
    const superseded = await trx('project_deploys')
      .where({ project_id: request.projectId, status: 'queued' })
      .update({ status: 'superseded', message: SUPERSEDED_MESSAGE, finished_at: trx.fn.now() })
      .returning<{ id: number }[]>('id');
    const [row] = await trx('project_deploys')
      .insert({
        project_id: request.projectId,
        status: 'queued',
        trigger: request.trigger,
        branch: request.branch,
        commit_hash: request.commit?.hash ?? null,
        commit_subject: request.commit?.subject ?? null,
        commit_author: request.commit?.author ?? null,
        committed_at: request.commit?.time ?? null,
        requested_by: request.requestedBy,
      })
      .returning<{ id: number }[]>('id');
    const deployId = Number(row?.id);
    await recordAudit(trx, {
      actorId: request.requestedBy,
      action: 'project.deploy',
      subjectType: 'project',
      subjectId: request.projectId,
      after: { deployId, trigger: request.trigger, branch: request.branch, commit: request.commit?.hash ?? null },
    });
    return { queued: true, deployId, superseded: superseded.map((each) => Number(each.id)) };
  });
}
