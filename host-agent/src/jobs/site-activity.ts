import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic-file.ts';

/** Why and when the agent stopped a container by itself (reported as the contract's AutoStop). */
export interface AutoStopRecord {
  reason: 'idle';
  stoppedAt: Date;
  /** Last request through the proxy or last start, whichever came later. */
  lastActivityAt: Date;
  /** The idle time in effect at the stop. */
  idleAfterMs: number;
  domain: string;
}

/** How the store came up: a new one, the file of an earlier run, or a fresh one instead of an unreadable file. */
export type ActivityLoad = 'new' | 'loaded' | 'unreadable';

export interface SiteActivityOptions {
  /** The JSON file (in AGENT_DATA_DIR) the store is kept in between runs. */
  file: string;
  now: () => Date;
  /** Hosts remembered at most between two prunes (Host headers are the visitors' to choose). */
  maxHosts?: number;
}

/** File name of the store in AGENT_DATA_DIR. */
export const SITE_ACTIVITY_FILE = 'site-activity.json';

/** Unobserved stretches kept at most (older ones are dropped; each is merged with overlapping ones). */
const MAX_UNOBSERVED = 100;

const isoDate = z.iso.datetime().transform((value) => new Date(value));

const fileSchema = z.object({
  version: z.literal(1),
  trackingSince: isoDate,
  observedUntil: isoDate,
  lastActivity: z.record(z.string(), isoDate),
  unobserved: z.array(z.tuple([isoDate, isoDate])),
  autoStops: z.record(
    z.string(),
    z.object({ reason: z.literal('idle'), stoppedAt: isoDate, lastActivityAt: isoDate, idleAfterMs: z.number().int().nonnegative(), domain: z.string() }),
  ),
});

/**
 * What the idle auto-stop knows about the sites, kept in memory and saved to AGENT_DATA_DIR so
 * an agent restart does not reset it: per domain the last request through the proxy (or the
 * container's last start), and the auto-stops made (per container id, until it starts again).
 *
 * Idle time only counts while the agent was watching. Before the store first existed, while the
 * agent was not running (from its last save to its start) and while Caddy did not answer, a
 * visit would have gone unseen: those stretches are "unobserved" and subtracted, so enabling
 * the feature, an agent outage or a Caddy outage never makes a visited site look idle.
 */
export class SiteActivity {
  private readonly lastActivity = new Map<string, number>();
  private readonly autoStops = new Map<string, AutoStopRecord>();
  private unobserved: Array<[number, number]> = [];
  private trackingSince: number;

  private constructor(private readonly options: SiteActivityOptions) {
    this.trackingSince = options.now().getTime();
  }

  /** The store of `options.file`: what an earlier run saved, or a new one. */
  static async load(options: SiteActivityOptions): Promise<{ activity: SiteActivity; load: ActivityLoad; problem?: string }> {
    const activity = new SiteActivity(options);
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return { activity, load: 'new' };
      return { activity, load: 'unreadable', problem: String(error) };
    }
    let saved: z.infer<typeof fileSchema>;
    try {
      saved = fileSchema.parse(JSON.parse(text));
    } catch (error) {
      // Start over, watching from now: nothing is stopped before a whole idle time was seen.
      return { activity, load: 'unreadable', problem: error instanceof Error ? error.message.slice(0, 300) : String(error) };
    }
    const now = options.now().getTime();
    activity.trackingSince = Math.min(saved.trackingSince.getTime(), now);
    for (const [domain, at] of Object.entries(saved.lastActivity)) activity.lastActivity.set(domain, at.getTime());
    for (const [id, record] of Object.entries(saved.autoStops)) activity.autoStops.set(id, record);
    activity.unobserved = saved.unobserved.map(([from, to]) => [from.getTime(), to.getTime()]);
    // The agent was not running from its last save until now.
    activity.addUnobserved(saved.observedUntil, new Date(now));
    return { activity, load: 'loaded' };
  }

  /** A visitor's request for `host` (already normalised) arrived now. */
  recordVisit(host: string): void {
    this.touch(host);
  }

  /** The container of `domain` started, restarted or was unpaused now: that counts as activity. */
  recordStart(domain: string): void {
    this.touch(domain);
  }

  private touch(host: string): void {
    const key = host.toLowerCase();
    if (!this.lastActivity.has(key) && this.lastActivity.size >= (this.options.maxHosts ?? 20_000)) return;
    this.lastActivity.set(key, this.options.now().getTime());
  }

  /** Last request or start seen for `domain`; undefined when none was seen. */
  lastActivityOf(domain: string): Date | undefined {
    const at = this.lastActivity.get(domain.toLowerCase());
    return at === undefined ? undefined : new Date(at);
  }

  /**
   * How long a site whose last activity was at `since` has been idle now, counting only time
   * the agent was watching (see the class comment).
   */
  idleMs(since: Date | undefined): number {
    const now = this.options.now().getTime();
    const from = Math.max(since?.getTime() ?? this.trackingSince, this.trackingSince);
    if (from >= now) return 0;
    let blind = 0;
    for (const [start, end] of this.unobserved) blind += Math.max(0, Math.min(end, now) - Math.max(start, from));
    return Math.max(0, now - from - blind);
  }

  /** Nothing could have been seen from `from` to `to` (agent down, Caddy away). */
  addUnobserved(from: Date, to: Date): void {
    const start = from.getTime();
    const end = to.getTime();
    if (!(end > start)) return;
    const spans = [...this.unobserved, [start, end] as [number, number]].sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const span of spans) {
      const last = merged.at(-1);
      if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
      else merged.push([span[0], span[1]]);
    }
    this.unobserved = merged.slice(-MAX_UNOBSERVED);
  }

  autoStopOf(containerId: string): AutoStopRecord | undefined {
    return this.autoStops.get(containerId);
  }

  markAutoStop(containerId: string, record: AutoStopRecord): void {
    this.autoStops.set(containerId, record);
  }

  /** The container runs again (or is gone): its auto-stop is history. True when there was one. */
  clearAutoStop(containerId: string): boolean {
    return this.autoStops.delete(containerId);
  }

  /** Keeps only what belongs to existing containers: their domains and their auto-stops. */
  retain(domains: Set<string>, containerIds: Set<string>): void {
    for (const domain of this.lastActivity.keys()) if (!domains.has(domain)) this.lastActivity.delete(domain);
    for (const id of this.autoStops.keys()) if (!containerIds.has(id)) this.autoStops.delete(id);
  }

  /** Writes the store (atomically); `observedUntil` is now. */
  async save(): Promise<void> {
    const iso = (ms: number) => new Date(ms).toISOString();
    const content = {
      version: 1,
      trackingSince: iso(this.trackingSince),
      observedUntil: this.options.now().toISOString(),
      lastActivity: Object.fromEntries([...this.lastActivity].map(([domain, at]) => [domain, iso(at)])),
      unobserved: this.unobserved.map(([from, to]) => [iso(from), iso(to)]),
      autoStops: Object.fromEntries(
        [...this.autoStops].map(([id, record]) => [id, { ...record, stoppedAt: record.stoppedAt.toISOString(), lastActivityAt: record.lastActivityAt.toISOString() }]),
      ),
    };
    await mkdir(path.dirname(this.options.file), { recursive: true });
    await writeFileAtomic(this.options.file, `${JSON.stringify(content, null, 1)}\n`, 0o640);
  }
}
