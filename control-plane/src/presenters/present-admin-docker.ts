import type { ContainerView } from '../agent/container-views.ts';

/** One row of the admin dockers table (brief: exact shape). */
export interface AdminDockerJson {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Status: string;
  /** The owner's name, or 'NO OWNER'. */
  user: string;
  userId: number | null;
  projectId: number | null;
  managed: boolean;
}

export const NO_OWNER = 'NO OWNER';

/** `owner` is the first member of the project the container belongs to (by label or by name). */
export function presentAdminDocker(container: ContainerView, project: { id: number; owner: { id: number; name: string } | null } | null): AdminDockerJson {
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
  };
}
