import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { AgentClient } from '../agent/agent-client.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { CaptureOutcomeName, CaptureView } from '../agent/screenshot-views.ts';
import { countCaptureOutcome, type ControlPlaneMetrics } from '../metrics/metrics.ts';
import { dutchCaptureReason } from '../lib/capture-reasons.ts';

/**
 * Capturing a project's site and storing its thumbnail. One capturer per process, with one queue
 * per dev server: each runs at most `concurrency` captures at once on its own agent (a slow
 * or unreachable dev server does not hold up the other's), at most one per project (a request while one is
 * queued or running gets the one capture that follows it), and records every outcome on the project's `thumbnails` row:
 * a success replaces the png (etag = hash of the bytes, captured_at = when it was taken) and
 * clears last_error; a failure keeps the old png and records a Dutch reason in last_error, which
 * makes /misc/browserimg2/small/{name}_s.png answer 404 (site-policy isThumbnailServable).
 */

export interface ThumbnailCaptureSettings {
  /** Captures in flight at most, per dev server (THUMBNAIL_CONCURRENCY). */
  concurrency: number;
  /** Page time limit per capture (THUMBNAIL_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface ThumbnailCaptureDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link'>;
  logger: Logger;
  settings: ThumbnailCaptureSettings;
  /** Where each capture's outcome is counted, per dev server. */
  metrics: Pick<ControlPlaneMetrics, 'countThumbnailCapture'>;
}

/** How one capture of a project ended, for jobs, logs and tests. */
export interface CaptureResult {
  projectId: number;
  /** True when a new thumbnail was stored. */
  ok: boolean;
  /**
   * The agent's outcome, or: 'agent_error' (the agent refused the call, e.g. a domain outside the
   * dev domain: recorded), 'agent_unreachable' (no answer, no browser or no screenshot service: NOT recorded, the last
   * good thumbnail stays), 'missing' (the project no longer exists).
   */
  outcome: CaptureOutcomeName | 'agent_error' | 'agent_unreachable' | 'missing';
  /** The Dutch reason stored in last_error (or logged, for agent_unreachable); null when ok. */
  error: string | null;
}

/** Dutch prefixes of a failed capture's reason (the admin dockers table shows them). */
const FAILURE_PREFIX: Record<Exclude<CaptureOutcomeName, 'captured'> | 'agent_error', string> = {
  timeout: 'Time-out: de site laadde niet op tijd',
  unreachable: 'Onbereikbaar: de site gaf geen antwoord',
  http_error: 'HTTP-fout',
  browser_error: 'Browserfout',
  redirected_away: 'Doorgestuurd naar een ander domein',
  unknown: 'Screenshot mislukt',
  agent_error: 'De dockerserver weigerde de screenshot',
};

/**
 * The reason stored in last_error (the admin dockers table shows it): the Dutch prefix plus the
 * agent's reason where it is Dutch or known (dutchCaptureReason); an English reason it does not
 * know stays out of it (the callers log it).
 */
export function failureText(outcome: Exclude<CaptureOutcomeName, 'captured'> | 'agent_error', reason: string, httpStatus = 0): string {
  const prefix = outcome === 'http_error' && httpStatus > 0 ? `${FAILURE_PREFIX.http_error} ${httpStatus}` : FAILURE_PREFIX[outcome];
  const detail = dutchCaptureReason(reason);
  return detail ? `${prefix} (${detail})` : prefix;
}

/** The stored etag of a thumbnail: a hash of its bytes, so equal pictures keep their cache. */
export const thumbnailEtag = (png: Buffer): string => createHash('sha256').update(png).digest('base64url').slice(0, 32);

/** Upserts the project's thumbnail row after a capture (never inside a transaction around the agent call). */
async function record(knex: Knex, projectId: number, attemptAt: Date, change: { png: Buffer; capturedAt: Date } | { error: string }): Promise<void> {
  const values =
    'png' in change
      ? { png: change.png, etag: thumbnailEtag(change.png), captured_at: change.capturedAt, last_error: null, last_attempt_at: attemptAt }
      : { last_error: change.error, last_attempt_at: attemptAt };
  await knex('thumbnails')
    .insert({ project_id: projectId, ...values })
    .onConflict('project_id')
    .merge(Object.keys(values));
}

/** A project's row as the capture needs it. */
interface CaptureTarget {
  id: number;
  domain: string;
  host: string | null;
}

/** One dev server's queue: captures running and the ones waiting for a slot. */
interface HostQueue {
  running: number;
  waiting: Array<() => void>;
}

/**
 * The capture queues of the app. One per process (AppServices.thumbnails): the "one per
 * project" and "bounded per dev server" promises hold only inside one capturer.
 */
export class ThumbnailCapturer {
  /** The capture of each project that is queued or running now. */
  private readonly inFlight = new Map<number, Promise<CaptureResult>>();
  /** The one capture that follows it, shared by every request made while it runs, and how to begin it. */
  private readonly following = new Map<number, { result: Promise<CaptureResult>; begin: () => void }>();
  /** Projects whose capture has asked the agent already (the others still wait for a slot). */
  private readonly asking = new Set<number>();
  private readonly queues = new Map<string, HostQueue>();

  constructor(readonly deps: ThumbnailCaptureDeps) {}

  /** Projects queued or being captured now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Captures running at this moment (never more than settings.concurrency per dev server). */
  get active(): number {
    let running = 0;
    for (const queue of this.queues.values()) running += queue.running;
    return running;
  }

  isInFlight(projectId: number): boolean {
    return this.inFlight.has(projectId);
  }

  /** Whether capture(projectId) now would share a capture already asked for (one waiting for a slot, or the one to follow). */
  wouldJoin(projectId: number): boolean {
    return this.inFlight.has(projectId) && (!this.asking.has(projectId) || this.following.has(projectId));
  }

  /**
   * Captures one project's site and records the outcome. The answer always comes from a capture
   * that asks the agent after the call: a capture still waiting for a slot is joined, but while
   * one is already taking the picture, the call gets the one capture that follows it (shared by
   * every call made meanwhile), because the running one may show the site from before the reason
   * to ask (a start, a fix, a reject). So a project has at most one capture in flight and one
   * waiting. Never rejects for the site's or the agent's failures (those are the result), only
   * for a database failure.
   */
  capture(projectId: number): Promise<CaptureResult> {
    const running = this.inFlight.get(projectId);
    if (!running) return this.start(projectId);
    if (!this.asking.has(projectId)) return running;
    const waiting = this.following.get(projectId);
    if (waiting) return waiting.result;
    let begin = (): void => undefined;
    const result = new Promise<CaptureResult>((resolve, reject) => {
      begin = () => void this.start(projectId).then(resolve, reject);
    });
    this.following.set(projectId, { result, begin });
    return result;
  }

  /** Runs a capture now; when it ends, the one that waits to follow it begins at once (no gap without one in flight). */
  private start(projectId: number): Promise<CaptureResult> {
    const work = this.captureProject(projectId).finally(() => {
      this.inFlight.delete(projectId);
      this.asking.delete(projectId);
      const next = this.following.get(projectId);
      this.following.delete(projectId);
      next?.begin();
    });
    this.inFlight.set(projectId, work);
    return work;
  }

  /** Finds the project's dev server, then captures in that server's queue (counted per server). */
  private async captureProject(projectId: number): Promise<CaptureResult> {
    const project = await this.deps.knex('projects').where('id', projectId).first<CaptureTarget | undefined>('id', 'domain', 'host');
    if (!project) return { projectId, ok: false, outcome: 'missing', error: null };
    const link = this.deps.agents.link(project.host);
    return countCaptureOutcome(
      link.name,
      this.withSlot(link.name, () => {
        this.asking.add(projectId);
        return this.captureNow(project, link.client);
      }),
      this.deps.metrics,
    );
  }

  private async withSlot<T>(host: string, work: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(host);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.queues.set(host, queue);
    }
    if (queue.running >= this.deps.settings.concurrency) {
      await new Promise<void>((resolve) => queue.waiting.push(resolve));
    } else {
      queue.running += 1;
    }
    try {
      return await work();
    } finally {
      const next = queue.waiting.shift();
      // The slot passes straight to the next waiter; only without one does the count go down.
      if (next) next();
      else queue.running -= 1;
    }
  }

  private async captureNow(project: CaptureTarget, agent: Pick<AgentClient, 'screenshots'>): Promise<CaptureResult> {
    const { knex, logger, settings } = this.deps;
    const projectId = project.id;
    const attemptAt = new Date();
    let view: CaptureView;
    try {
      view = await agent.screenshots.capture({ domain: project.domain, timeoutMs: settings.timeoutMs });
    } catch (error) {
      if (error instanceof AgentError && !error.unreachable && error.code !== 'UNIMPLEMENTED') {
        const text = failureText('agent_error', error.details);
        await record(knex, projectId, attemptAt, { error: text });
        logger.info({ projectId, domain: project.domain, code: error.code, details: error.details }, 'capture refused by the agent');
        return { projectId, ok: false, outcome: 'agent_error', error: text };
      }
      // The agent (or its browser) is down or has no screenshot service: not the site's fault, so
      // the last good thumbnail stays.
      const detail = error instanceof AgentError ? `${error.code}: ${error.details}` : String(error);
      logger.warn({ projectId, domain: project.domain, error: detail }, 'capture not possible: agent or browser unavailable');
      return { projectId, ok: false, outcome: 'agent_unreachable', error: 'De screenshotdienst is niet bereikbaar' };
    }
    if (view.outcome === 'captured' && view.thumbnailPng.length > 0) {
      await record(knex, projectId, attemptAt, { png: view.thumbnailPng, capturedAt: view.capturedAt ?? attemptAt });
      logger.debug({ projectId, domain: project.domain, bytes: view.thumbnailPng.length }, 'thumbnail stored');
      return { projectId, ok: true, outcome: 'captured', error: null };
    }
    const outcome = view.outcome === 'captured' ? 'unknown' : view.outcome;
    const reason = view.outcome === 'captured' ? 'the agent sent no thumbnail' : view.outcome === 'unknown' ? `outcome ${view.outcomeCode}: ${view.errorReason}` : view.errorReason;
    const text = failureText(outcome, reason, view.httpStatus);
    await record(knex, projectId, attemptAt, { error: text });
    logger.info({ projectId, domain: project.domain, outcome, reason }, 'capture failed');
    return { projectId, ok: false, outcome, error: text };
  }
}
