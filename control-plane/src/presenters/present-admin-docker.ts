import type { ContainerView } from '../agent/container-views.ts';
import { NO_OWNER, type AdminDocker } from '@devplein/contract/dockers';
import type { DeployRow } from '../queries/deploys.ts';
import { presentDeployCommit } from './present-deploy.ts';

/** One row of the admin dockers table (the shared contract of contract/src/dockers.ts). */
export type AdminDockerJson = AdminDocker;
export { NO_OWNER };

/** `owner` is the first member of the project the container belongs to (by label or by name); `host` the dev server it is on. */
export function presentAdminDocker(
  container: ContainerView,
  project: { id: number; owner: { id: number; name: string } | null } | null,
  host: string,
): AdminDockerJson {
  return {
    Id: container.id,
    Names: [...container.names],
    Image: container.image,
    State: container.state,
    Status: container.status,
    user: project?.owner?.name ?? NO_OWNER,
    userId: project?.owner?.id ?? null,
    projectId: project?.id ?? (container.projectId > 0 ? container.projectId : null),
    managed: container.managed,
    autoStop: container.autoStop,
    host,
  };
}

/** A row of the table with its site screenshot state and, for project rows, the commit deployed last (queries/admin-dockers.ts loads both). */
export function presentAdminDockerRow(row: {
  container: ContainerView;
  host: string;
  project: { id: number; owner: { id: number; name: string } | null } | null;
  screenshot: AdminDockerJson['screenshot'];
  deployed?: DeployRow | null;
}): AdminDockerJson {
  const docker = { ...presentAdminDocker(row.container, row.project, row.host), screenshot: row.screenshot };
  return row.deployed === undefined ? docker : { ...docker, deployedCommit: row.deployed ? presentDeployCommit(row.deployed) : null };
}
