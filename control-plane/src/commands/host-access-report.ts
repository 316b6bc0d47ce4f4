import type { Logger } from 'pino';
import { AgentError } from '../agent/agent-error.ts';

/** Why a step on a dev server is not done yet. */
export type NotDoneReason = 'unreachable' | 'unimplemented' | 'paused' | 'failed';

/** One step that is not done: on which dev server, what (Dutch, as the admin reads it), why. */
export interface NotDoneStep {
  host: string;
  what: string;
  why: NotDoneReason;
  detail: string;
}

const reasonText: Record<NotDoneReason, (host: string) => string> = {
  unreachable: (host) => `ontwikkelserver ${host} is niet bereikbaar`,
  unimplemented: (host) => `de agent op ${host} kan dit nog niet, hij is van een oudere versie`,
  paused: () => 'de container staat op pauze',
  failed: (host) => `het lukte niet op ${host}, zie het log van de control plane`,
};

/** A failed agent call as a reason the admin can act on; anything that is not an agent's answer is 'failed'. */
export function notDoneReason(error: unknown): NotDoneReason {
  if (!(error instanceof AgentError)) return 'failed';
  if (error.unreachable) return 'unreachable';
  if (error.code === 'UNIMPLEMENTED') return 'unimplemented';
  if (error.code === 'FAILED_PRECONDITION' && /paused/.test(error.details)) return 'paused';
  return 'failed';
}

/**
 * What a run of access changes did per dev server (for the audit log) and what it could not do
 * yet (for the admin's answer and the pending intent). Each agent call runs as a step: a
 * failure is recorded here and the run goes on with the other steps, so one dev server that
 * does not answer never stops the others.
 */
export class HostAccessReport {
  private readonly hosts: Record<string, Record<string, unknown>> = {};
  private readonly missed: NotDoneStep[] = [];
  private succeeded = 0;

  constructor(private readonly logger: Logger) {}

  /** Runs one agent call on `host`; its failure becomes a not-done step (`what`, Dutch) and undefined. */
  async step<T>(host: string, what: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await work();
      this.succeeded += 1;
      return result;
    } catch (error) {
      const why = notDoneReason(error);
      const detail = error instanceof Error ? error.message : String(error);
      if (why === 'failed') this.logger.error({ err: error, host, step: what }, 'an access change on a dev server failed');
      else this.logger.warn({ host, step: what, why, detail }, 'an access change on a dev server is not done yet');
      this.missed.push({ host, what, why, detail });
      return undefined;
    }
  }

  /** Takes over the not-done steps of another run (e.g. a project's sync within a user's delete). */
  absorb(steps: readonly NotDoneStep[]): void {
    this.missed.push(...steps);
  }

  /** Records a fact about `host` for the audit. */
  note(host: string, key: string, value: unknown): void {
    (this.hosts[host] ??= {})[key] = value;
  }

  /** Adds an item to a list of facts about `host` (e.g. every project whose keys were synced). */
  add(host: string, key: string, item: unknown): void {
    const facts = (this.hosts[host] ??= {});
    facts[key] = [...((facts[key] as unknown[] | undefined) ?? []), item];
  }

  /** In a stable order (dev server, then what), whatever order the parallel steps finished in. */
  get notDone(): readonly NotDoneStep[] {
    return [...this.missed].sort((a, b) => a.host.localeCompare(b.host) || a.what.localeCompare(b.what, 'nl'));
  }

  /** Whether any step succeeded (a run in which every step failed again is not worth an audit entry). */
  get didAnything(): boolean {
    return this.succeeded > 0;
  }

  /** The not-done steps in Dutch, grouped by dev server and reason; null when everything is done. */
  message(): string | null {
    if (this.missed.length === 0) return null;
    const groups = new Map<string, { host: string; why: NotDoneReason; what: string[] }>();
    for (const step of this.notDone) {
      const key = `${step.host}\u0000${step.why}`;
      const group = groups.get(key) ?? { host: step.host, why: step.why, what: [] };
      if (!group.what.includes(step.what)) group.what.push(step.what);
      groups.set(key, group);
    }
    const parts = [...groups.values()].map((group) => `${group.what.join(', ')} (${reasonText[group.why](group.host)})`);
    return `Nog niet gedaan: ${parts.join('; ')}. Dit wordt vanzelf opnieuw geprobeerd.`;
  }

  /** The audit record: facts per dev server and the steps not done. */
  toAudit(): Record<string, unknown> {
    return { hosts: this.hosts, not_done: this.notDone.map(({ host, what, why }) => ({ host, what, why })) };
  }
}
