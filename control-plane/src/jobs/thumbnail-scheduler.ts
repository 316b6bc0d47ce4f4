import { scheduleJob } from '@devplein/server-kit/scheduled-job';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ContainerEventView } from '../agent/container-views.ts';
import type { CaptureResult, ThumbnailCapturer } from '../services/thumbnail-capturer.ts';

/**
 * The nightly job: captures every approved, visible site (the ones the websites wall shows). Each site is
 * captured on its own through the capturer's bounded queue; one site's failure is that site's
 * result and does not stop the others. Resolves with every site's result, in project id order.
 */
export async function captureVisibleSites(deps: { knex: Knex; capturer: ThumbnailCapturer; logger: Logger }): Promise<CaptureResult[]> {
  // The sites of the wall (site-policy isShownOnWall): approved and visible.
  const ids = (await deps.knex('projects').where({ visible: true, validated: true }).orderBy('id').pluck('id')).map(Number);
  const started = Date.now();
  const results = await Promise.all(
    ids.map((projectId) =>
      deps.capturer.capture(projectId).catch((error: unknown): CaptureResult => {
        deps.logger.error({ err: error, projectId }, 'storing a capture failed');
        return { projectId, ok: false, outcome: 'unknown', error: error instanceof Error ? error.message : String(error) };
      }),
    ),
  );
  const failed = results.filter((result) => !result.ok).length;
  deps.logger.info({ sites: results.length, captured: results.length - failed, failed, ms: Date.now() - started }, 'nightly thumbnails done');
  return results;
}

/** Container actions after which the site is (again) served by a fresh process. */
const STARTING_ACTIONS: ReadonlySet<string> = new Set(['start', 'restart', 'unpause']);

export interface ThumbnailSchedulerOptions {
  knex: Knex;
  capturer: ThumbnailCapturer;
  logger: Logger;
  /** Cron expression of the nightly run (THUMBNAIL_CRON); 'off' schedules none. */
  cronExpression: string;
  /** Wait after a container starts before its site is captured (THUMBNAIL_AFTER_START_S). */
  afterStartMs: number;
}

export interface ThumbnailScheduler {
  /** Feed of the agent's container events: a start schedules a capture of that project's site. */
  onContainerEvent(event: ContainerEventView): void;
  /** Captures started by start events that are still waiting for their delay. */
  readonly waitingAfterStart: number;
  stop(): Promise<void>;
}

/**
 * Keeps thumbnails fresh: every visible site on the nightly cron, and a site `afterStartMs` after
 * its container (re)starts (several starts in a row give one capture, after the last). The
 * captures themselves go through the shared capturer (one per site, bounded overall).
 */
export function startThumbnailScheduler(options: ThumbnailSchedulerOptions): ThumbnailScheduler {
  const { capturer, logger } = options;
  const timers = new Map<number, NodeJS.Timeout>();
  let stopped = false;

  const task =
    options.cronExpression === 'off'
      ? null
      : scheduleJob({
          name: 'thumbnails-nightly',
          expression: options.cronExpression,
          setting: 'THUMBNAIL_CRON',
          logger,
          run: () => captureVisibleSites(options),
        });

  return {
    onContainerEvent(event) {
      // An empty state: the agent could not inspect the container after the event; a start still is one.
      if (stopped || event.projectId <= 0 || !STARTING_ACTIONS.has(event.action) || (event.state !== 'running' && event.state !== '')) return;
      const projectId = event.projectId;
      const previous = timers.get(projectId);
      if (previous) clearTimeout(previous);
      const timer = setTimeout(() => {
        timers.delete(projectId);
        capturer
          .capture(projectId)
          .then((result) => logger.debug({ projectId, outcome: result.outcome }, 'capture after start done'))
          .catch((error: unknown) => logger.error({ err: error, projectId }, 'capture after start failed'));
      }, options.afterStartMs);
      timer.unref();
      timers.set(projectId, timer);
    },
    get waitingAfterStart() {
      return timers.size;
    },
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await task?.stop();
    },
  };
}
