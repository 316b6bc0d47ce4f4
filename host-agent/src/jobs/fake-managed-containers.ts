import type { ManagedContainer, ManagedContainerEvent, ManagedContainers } from './managed-containers.ts';

/**
 * ManagedContainers in memory, for the job tests (route keeper, idle auto-stop): a list the test
 * sets, start times per id, and records of what the job removed or stopped.
 */
export class FakeManagedContainers implements ManagedContainers {
  removed: string[] = [];
  stopped: string[] = [];
  /** Container id → when it last started; a container without an entry never started. */
  started = new Map<string, Date>();
  private onEvent: ((event: ManagedContainerEvent) => void) | undefined;

  constructor(public containers: ManagedContainer[]) {}

  async list(): Promise<ManagedContainer[]> {
    return this.containers;
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
    this.onEvent = onEvent;
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  emit(event: ManagedContainerEvent): void {
    this.onEvent?.(event);
  }

  get watching(): boolean {
    return this.onEvent !== undefined;
  }
}
