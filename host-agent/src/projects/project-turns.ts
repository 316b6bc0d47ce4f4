import { KeyedLock } from '@devplein/server-kit/keyed-lock';

/**
 * What may change a project's container. `create` makes it; `start` starts or unpauses it (a
 * running one stays running); `interrupt` stops, restarts or pauses it (a running one stops
 * running for a while); `remove` removes it; `keys` writes its ~/.ssh/authorized_keys. A deploy
 * replaces its web root.
 */
export type ProjectChange = 'create' | 'start' | 'interrupt' | 'remove' | 'keys';

/** What ends a running deploy: its container stops running, or goes. */
type Revoking = Extract<ProjectChange, 'interrupt' | 'remove'>;

/** A deploy's hold on the project: revoked by a stop, restart, pause or removal. */
interface DeployLease {
  readonly revoked: AbortController;
  readonly ended: Promise<void>;
}

/**
 * The one owner of each project's turn on this agent (Wings' per-server power lock): every change
 * of a project's container (create, act, remove, key sync) and every deploy goes through the
 * project's lock, so no two of them interleave. Projects do not wait for each other.
 *
 * A deploy can take minutes (a build), longer than a state change or a removal may wait for its
 * answer. So a deploy takes the lock only to start, and then holds a lease on the project:
 * - a stop, restart or pause (`interrupt`) or a removal revokes the lease: the deploy stops (its
 *   signal aborts; the old site stays, as when the container changed under it before) and the
 *   change goes on once the deploy has wound down;
 * - a create, a start and a key write pass beside it: a create finds the container the deploy
 *   works in (one container per project), a start of a running container changes nothing (the
 *   control plane starts a container it just made while its first deploy runs), a key write
 *   touches only ~/.ssh;
 * - a second deploy waits for the first (deploys of a project run one at a time).
 * The later browser terminal and file editor take their turn here too.
 */
export class ProjectTurns {
  private readonly lock = new KeyedLock<number>();
  private readonly deploysInOrder = new KeyedLock<number>();
  private readonly leases = new Map<number, DeployLease>();

  /** Runs a change of the project's container in the project's turn. */
  change<T>(projectId: number, change: ProjectChange, work: () => Promise<T>): Promise<T> {
    return this.lock.run(projectId, async () => {
      const lease = this.leases.get(projectId);
      if (lease && (change === 'interrupt' || change === 'remove')) {
        lease.revoked.abort(new DeployRevokedError(change));
        await lease.ended;
      }
      return work();
    });
  }

  /**
   * Runs a deploy in the project's turn. `work` gets a signal that aborts when a state change or a
   * removal revokes the deploy's lease (then `revoked(signal)` is true).
   */
  deploy<T>(projectId: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.deploysInOrder.run(projectId, async () => {
      let end!: () => void;
      const lease: DeployLease = { revoked: new AbortController(), ended: new Promise<void>((resolve) => (end = resolve)) };
      // Taken once the changes before it are done; held beside the lock from then on.
      await this.lock.run(projectId, async () => {
        this.leases.set(projectId, lease);
      });
      try {
        return await work(lease.revoked.signal);
      } finally {
        this.leases.delete(projectId);
        end();
      }
    });
  }
}

/** Why a deploy's signal aborted: a stop, restart, pause or removal of its container took the turn. */
export class DeployRevokedError extends Error {
  constructor(readonly by: Revoking) {
    super(by === 'remove' ? 'the container is being removed' : 'the container is being stopped, restarted or paused');
    this.name = 'DeployRevokedError';
  }
}

/** Whether a deploy's signal aborted because its lease was revoked (not because its caller left). */
export function revoked(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof DeployRevokedError;
}
