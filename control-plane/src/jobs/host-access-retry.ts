import { scheduleJob } from '@devplein/server-kit/scheduled-job';
import { applyUserAccess } from '../commands/apply-user-access.ts';
import { pendingAccessRows } from '../queries/host-access.ts';
import { type HostAccessDeps, syncProjectAccess } from '../commands/sync-project-access.ts';

/**
 * One pass over the pending access intents (oldest first): each user's access is applied again
 * from their flags as they are now, each project's container synced again with the members who
 * left; whatever is done is cleared, the rest waits for the next pass. An intent a request
 * cleared meanwhile is done (not redone). Resolves with how many intents are done and how many
 * are left.
 */
export async function retryPendingAccess(deps: HostAccessDeps): Promise<{ done: number; left: number }> {
  let done = 0;
  let left = 0;
  for (const row of await pendingAccessRows(deps.knex)) {
    const outcome =
      row.user_id !== null
        ? await applyUserAccess(deps, row.user_id, { actorId: null, reason: row.reason, retry: true, pendingId: row.id, stopSoleContainers: row.stop_sole_containers })
        : await syncProjectAccess(deps, row.project_id as number, { actorId: null, reason: row.reason, retry: true, pendingId: row.id, endSessionsOf: row.end_sessions_of });
    if (outcome.complete) done += 1;
    else left += 1;
  }
  return { done, left };
}

export interface HostAccessRetry {
  stop(): Promise<void>;
}

/**
 * Retries pending access changes on `cronExpression` (HOST_ACCESS_RETRY_CRON, default every
 * minute; 'off' schedules none): a dev server that was down gets what it missed soon after it
 * is back, without anyone pressing a button again.
 */
export function startHostAccessRetry(deps: HostAccessDeps & { cronExpression: string }): HostAccessRetry {
  if (deps.cronExpression === 'off') return { stop: async () => undefined };
  return scheduleJob({
    name: 'host-access-retry',
    expression: deps.cronExpression,
    setting: 'HOST_ACCESS_RETRY_CRON',
    logger: deps.logger,
    run: async () => {
      const { done, left } = await retryPendingAccess(deps);
      if (done + left > 0) deps.logger.info({ done, left }, 'pending access changes retried');
    },
  });
}
