import { type ContainerView, LABELS } from '../drivers/docker/docker-driver.ts';
import { DockerError } from '../drivers/docker/docker-errors.ts';

/**
 * Which containers the control plane may have the agent act on, checked by the agent itself so
 * that a control plane that is not itself any more (stolen certificate, bug, compromise) cannot
 * use the agent against the host's own services:
 *
 * - looking inside a container (exec: WordPress password reset; its logs) only for containers
 *   the agent manages (`devplein.managed=true`, which only the agent sets at create);
 * - start/stop/pause/unpause/restart and remove also for unmanaged containers (the admin
 *   dockers screen lists them, acts on them and adopts them, spec §6/§10), but never for a
 *   container labelled `devplein.infrastructure=true`: Caddy, a registry, a containerised
 *   MariaDB or PostgreSQL, the control plane itself when it runs in Docker on this host.
 *
 * SSH keys and sessions (SshAccessService) reach a container by its project label only, so
 * managed containers only already.
 */

/** The label a sysadmin puts on the host's own containers; the agent then never acts on them. */
export const INFRASTRUCTURE_LABEL = 'devplein.infrastructure';

export const isManaged = (view: Pick<ContainerView, 'labels'>): boolean => view.labels[LABELS.managed] === 'true';

export const isInfrastructure = (view: Pick<ContainerView, 'labels'>): boolean => view.labels[INFRASTRUCTURE_LABEL] === 'true';

const nameOf = (view: Pick<ContainerView, 'names' | 'id'>): string => view.names[0]?.replace(/^\//, '') ?? view.id;

/** For exec and logs: the container must be one the agent manages. */
export function requireManaged(view: ContainerView, what: string): ContainerView {
  if (!isManaged(view)) throw new DockerError('permission-denied', `${what} is only done on the agent's own project containers; ${nameOf(view)} is not one`);
  return view;
}

/** For lifecycle actions and removal: any container but the host's infrastructure. */
export function requireNotInfrastructure(view: ContainerView, what: string): ContainerView {
  if (!isManaged(view) && isInfrastructure(view)) {
    throw new DockerError('permission-denied', `${nameOf(view)} is part of this dev server (${INFRASTRUCTURE_LABEL}=true): the agent does not ${what} it`);
  }
  return view;
}
