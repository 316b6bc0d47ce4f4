import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import type { Cleanups } from './cleanups.ts';

const execFileAsync = promisify(execFile);

/** The pid of a running program by name (`pidof -s`); undefined when none runs. */
export const pidOf = async (name: string): Promise<number | undefined> =>
  Number((await execFileAsync('pidof', ['-s', name]).catch(() => ({ stdout: '' }))).stdout.trim()) || undefined;

export interface BusyboxContainersOptions {
  /** Names are `${prefix}-${index}`. */
  prefix: string;
  count: number;
  image: string;
  /** Project ids are `projectIdBase + index`, so the agent counts them as managed. */
  projectIdBase: number;
  /** The agent's network, when the bench needs the containers on it. */
  network?: string;
}

/**
 * Starts `count` managed busybox containers (64 MB limit), ten at a time, and registers their
 * removal with `cleanups`. The container set-up of the stats benches. Returns their names.
 */
export async function startBusyboxContainers(docker: Docker, cleanups: Cleanups, options: BusyboxContainersOptions): Promise<string[]> {
  const names = Array.from({ length: options.count }, (_, index) => `${options.prefix}-${index}`);
  cleanups.add('containers', () => Promise.all(names.map((name) => docker.getContainer(name).remove({ force: true }).catch(() => undefined))));
  for (let index = 0; index < names.length; index += 10) {
    await Promise.all(
      names.slice(index, index + 10).map(async (name, offset) => {
        const container = await docker.createContainer({
          name,
          Image: options.image,
          Labels: { 'devplein.managed': 'true', 'devplein.project-id': String(options.projectIdBase + index + offset) },
          HostConfig: { Init: true, Memory: 64 * 1024 * 1024, ...(options.network ? { NetworkMode: options.network } : {}) },
        });
        await container.start();
      }),
    );
  }
  return names;
}
