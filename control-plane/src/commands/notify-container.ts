import { containerNotices } from '../realtime/container-notices.ts';
import type { ContainerCommandDeps } from './container-deps.ts';

/** Sends a DockerEventSent (once: the same message as the last on that channel is left out); a realtime failure is logged, never fatal. */
export async function notifyContainer(deps: Pick<ContainerCommandDeps, 'realtime' | 'logger'>, name: string, message: string): Promise<void> {
  await containerNotices(deps.realtime, deps.logger).send(name, message);
}
