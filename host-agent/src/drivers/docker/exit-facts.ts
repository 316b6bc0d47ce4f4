import { type InspectState, statusText } from './container-status.ts';
import type { ContainerView } from './docker-driver.ts';

/** Docker's State with the fields the exit facts read. */
export type ExitState = InspectState & { OOMKilled: boolean };

/** Why an exited or dead container stopped: Docker's State.OOMKilled and State.ExitCode. */
export interface ExitFacts {
  oomKilled: boolean;
  exitCode: number;
}

interface Entry extends ExitFacts {
  state: ExitState;
}

/** Only these containers are inspected for their exit: managed, and exited or dead. */
export function hasExitFacts(view: Pick<ContainerView, 'state' | 'projectId' | 'labels'>): boolean {
  return view.labels['devplein.managed'] === 'true' && (view.state === 'exited' || view.state === 'dead');
}

/**
 * The exit facts of exited/dead managed containers, inspected once per exit: an entry is kept
 * by container id with the FinishedAt it was read at, and a list reuses it while the listed
 * Status text is the one that FinishedAt gives now ("Exited (137) 5 minutes ago" is computed
 * from ExitCode and FinishedAt), so a container that ran and exited again since is inspected
 * again. An event stream of the driver forgets the entry at every start and die, which also
 * covers two exits that Docker's coarse "2 hours ago" cannot tell apart. Entries of containers
 * no longer listed as exited go at the next list.
 */
export class ExitFactsCache {
  private readonly entries = new Map<string, Entry>();
  /** Inspects made (the tests read it). */
  inspects = 0;

  constructor(
    private readonly inspect: (containerId: string) => Promise<ExitState | undefined>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  forget(containerId: string): void {
    this.entries.delete(containerId);
  }

  /** The facts of each listed container that has them (by id); inspects only what changed. */
  async of(views: ReadonlyArray<Pick<ContainerView, 'id' | 'state' | 'status' | 'projectId' | 'labels'>>): Promise<Map<string, ExitFacts>> {
    const exited = views.filter(hasExitFacts);
    const listed = new Set(exited.map((view) => view.id));
    for (const id of [...this.entries.keys()]) if (!listed.has(id)) this.entries.delete(id);
    const now = this.now();
    const facts = new Map<string, ExitFacts>();
    await Promise.all(
      exited.map(async (view) => {
        let entry = this.entries.get(view.id);
        if (!entry || entry.state.Status !== view.state || statusText(entry.state, now) !== view.status) {
          this.inspects += 1;
          const state = await this.inspect(view.id).catch(() => undefined);
          if (!state) return;
          entry = { state, oomKilled: state.OOMKilled, exitCode: state.ExitCode };
          // Only an exit is kept: a container that started meanwhile is read again next time.
          if (!state.Running) this.entries.set(view.id, entry);
          else return;
        }
        facts.set(view.id, { oomKilled: entry.oomKilled, exitCode: entry.exitCode });
      }),
    );
    return facts;
  }
}
