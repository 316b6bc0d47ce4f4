import { CONTAINER_CAPABILITIES, type ContainerCapability } from '@devplein/contract/validation/containerCapabilities';
import { DockerError } from './docker-errors.ts';

export type { ContainerCapability };

/**
 * The Linux capabilities a project container may get back after dropping ALL: Docker's default
 * set minus NET_RAW (raw sockets: ARP/ICMP spoofing on the shared network), MKNOD (device nodes)
 * and SETFCAP (file capabilities), which no web or SSH container needs. The list is defined once,
 * in the contract (@devplein/contract/validation/containerCapabilities): the control plane
 * validates against it, the admin images page shows it, and the agent enforces it on its own
 * side: whatever the control plane asks, nothing outside it (SYS_ADMIN, NET_ADMIN, SYS_PTRACE, ...)
 * ever reaches Docker.
 */
export const ALLOWED_CAPABILITIES: readonly ContainerCapability[] = CONTAINER_CAPABILITIES;

const allowed: ReadonlySet<string> = new Set(ALLOWED_CAPABILITIES);

/**
 * The capabilities of a CreateContainer request. `undefined` (a control plane older than contract
 * 1.3.0 sends none) is the whole allow-list: exactly what containers had before, so such a
 * control plane keeps getting working containers. A name outside the allow-list is
 * DockerError('invalid-argument'); duplicates collapse; the result is in allow-list order.
 */
export function parseCapabilities(requested: readonly string[] | undefined): ContainerCapability[] {
  if (requested === undefined) return [...ALLOWED_CAPABILITIES];
  const refused = requested.filter((name) => !allowed.has(name));
  if (refused.length > 0) {
    const shown = refused.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 40)));
    throw new DockerError('invalid-argument', `capabilities.add: ${shown.join(', ')} not allowed; allowed: ${ALLOWED_CAPABILITIES.join(', ')}`);
  }
  const wanted = new Set(requested);
  return ALLOWED_CAPABILITIES.filter((name) => wanted.has(name));
}
