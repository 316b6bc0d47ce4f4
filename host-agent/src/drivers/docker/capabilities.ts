import { DockerError } from './docker-errors.ts';

/**
 * The Linux capabilities a project container may get back after dropping ALL: Docker's default
 * set minus NET_RAW (raw sockets: ARP/ICMP spoofing on the shared network), MKNOD (device nodes)
 * and SETFCAP (file capabilities), which no web or SSH container needs. This list is the agent's
 * own: whatever the control plane asks, nothing outside it (SYS_ADMIN, NET_ADMIN, SYS_PTRACE, ...)
 * ever reaches Docker.
 */
export const ALLOWED_CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'AUDIT_WRITE',
] as const;

export type ContainerCapability = (typeof ALLOWED_CAPABILITIES)[number];

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
