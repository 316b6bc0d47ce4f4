import type { ManagedContainer, ManagedContainerEvent, ManagedContainers } from '../../../host-agent/src/drivers/docker/managed-containers.ts';

/** What dockerode fails with when the engine's socket is gone. */
const engineGone = (): Error => Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' });

/**
 * ManagedContainers in memory, for the job tests (route keeper, idle auto-stop): a list the test
 * sets, start times per id, records of what the job removed or stopped, and an engine that can
 * go away (goDown) and come back (up).
 */
export class FakeManagedContainers implements ManagedContainers {
  removed: string[] = [];
  stopped: string[] = [];
  /** Container id → when it last started; a container without an entry never started. */
  started = new Map<string, Date>();
  /** The engine does not answer: list fails and no event stream opens. */
  down = false;
  /** Event streams opened so far. */
  watches = 0;
  private onEvent: ((event: ManagedContainerEvent) => void) | undefined;
  private endStream: (() => void) | undefined;

  constructor(public containers: ManagedContainer[]) {}

  async list(): Promise<ManagedContainer[]> {
    if (this.down) throw engineGone();
    return this.containers;
  }

  /** The engine stops: its event stream ends, and it answers nothing until `up()`. */
  goDown(): void {
    this.down = true;
    this.endStream?.();
  }

  up(): void {
    this.down = false;
  }

  async removeIfStillCreated(id: string): Promise<boolean> {
    this.removed.push(id);
    this.containers = this.containers.filter((item) => item.id !== id);
    return true;
  }

  async startedAt(id: string): Promise<Date | undefined> {
    return this.started.get(id);
  }

  async stop(id: string): Promise<boolean> {
    const container = this.containers.find((item) => item.id === id);
    if (!container || container.state !== 'running') return false;
    this.stopped.push(id);
    container.state = 'exited';
    container.upstream = null;
    return true;
  }

  watch(onEvent: (event: ManagedContainerEvent) => void, signal: AbortSignal): Promise<void> {
    if (this.down) return Promise.reject(engineGone());
    this.watches += 1;
    this.onEvent = onEvent;
    return new Promise((resolve) => {
      this.endStream = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  emit(event: ManagedContainerEvent): void {
    this.onEvent?.(event);
  }

  get watching(): boolean {
    return this.onEvent !== undefined;
  }
}
