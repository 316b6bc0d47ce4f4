import { createServer } from 'node:net';
import { DockerError } from '../drivers/docker/docker-errors.ts';

/** Whether nothing listens on host:port (an SSH port another program took is skipped). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface SshPortPickerOptions {
  range: { first: number; last: number };
  bindAddress: string;
  /** The ports the engine's SSH containers carry in their labels (running or not: a container keeps its port). */
  usedPorts: () => Promise<Set<number>>;
  /** Whether nothing on the host listens there; portIsFree unless a unit test replaces the host. */
  isFree?: (host: string, port: number) => Promise<boolean>;
}

/** A port held for one create until the container carrying it exists (or the create failed). */
export interface SshPortReservation {
  port: number;
  release: () => void;
}

/** A create waiting for its port. */
interface Waiter {
  resolve: (reservation: SshPortReservation) => void;
  reject: (error: unknown) => void;
}

/**
 * Chooses SSH ports for new containers. Only the choice itself runs one at a time; the chosen
 * port stays reserved in this process until `release`, which the create calls once the
 * container (with the port in its label) exists or has failed. So parallel creates get
 * distinct ports without waiting for each other's engine calls. Creates that ask while a
 * choice is being made are served together by the next one: one listing of the engine's
 * ports for all of them (the reservations cover what this process chose meanwhile).
 */
export class SshPortPicker {
  private readonly reserved = new Set<number>();
  /**
   * Released since the last listing began: that listing may predate their containers, so
   * they count as used until the next listing (which sees the containers' labels).
   */
  private readonly releasedSinceListing = new Set<number>();
  private waiting: Waiter[] = [];
  private choosing = false;

  constructor(private readonly options: SshPortPickerOptions) {}

  reserve(): Promise<SshPortReservation> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.choosing) void this.chooseForWaiting();
    });
  }

  private async chooseForWaiting(): Promise<void> {
    this.choosing = true;
    try {
      while (this.waiting.length > 0) {
        const waiters = this.waiting;
        this.waiting = [];
        let used: Set<number>;
        this.releasedSinceListing.clear();
        try {
          used = await this.options.usedPorts();
        } catch (error) {
          waiters.forEach((waiter) => waiter.reject(error));
          continue;
        }
        for (const waiter of waiters) {
          try {
            waiter.resolve(await this.choose(used));
          } catch (error) {
            waiter.reject(error);
          }
        }
      }
    } finally {
      this.choosing = false;
    }
  }

  private async choose(used: ReadonlySet<number>): Promise<SshPortReservation> {
    const { range, bindAddress } = this.options;
    for (let port = range.first; port <= range.last; port += 1) {
      if (used.has(port) || this.reserved.has(port) || this.releasedSinceListing.has(port)) continue;
      if (!(await (this.options.isFree ?? portIsFree)(bindAddress, port))) continue;
      this.reserved.add(port);
      let released = false;
      return {
        port,
        release: () => {
          if (released) return;
          released = true;
          this.reserved.delete(port);
          this.releasedSinceListing.add(port);
        },
      };
    }
    throw new DockerError('failed-precondition', `no free SSH port left in ${range.first}-${range.last}`);
  }
}
