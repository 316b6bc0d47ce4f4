import { NO_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import type { ProjectJson, DockerImageOptionJson } from '@devplein/contract/projects';
export type { ProjectJson, DockerImageOptionJson };

/** A project row as loadProjects() reads it: the project, its image name and its members in order. */
export interface ProjectRow {
  id: number;
  name: string;
  description: string;
  domain: string;
  /** The dev server of its container (agent link name); null is the first one. */
  host: string | null;
  visible: boolean;
  repro: string | null;
  /** The branch git deploy takes (projects.deploy_branch); null: the default branch. */
  branch: string | null;
  end_date: string | Date | null;
  docker_image_id: number | null;
  docker_name: string | null;
  validated: boolean | null;
  created_at: Date | string;
  users: ProjectMemberRow[];
  /** The stored HTTPS token's owner (issue 35); null: none stored. */
  deploy_token: { stored_by: { id: number; name: string } } | null;
}

export interface ProjectMemberRow {
  id: number;
  name: string;
  group_id: number | null;
  cohort: string | null;
}

const isoDate = (value: string | Date | null): string | null =>
  value === null ? null : value instanceof Date ? value.toISOString().slice(0, 10) : value.slice(0, 10);

export function presentProject(row: ProjectRow): ProjectJson {
  return {
    id: row.id,
    docker_id: row.docker_image_id ?? NO_DOCKER_IMAGE,
    name: row.name,
    description: row.description,
    domain: row.domain,
    visible: row.visible ? '1' : '0',
    repro: row.repro,
    branch: row.branch,
    users: row.users.map((user) => ({
      id: Number(user.id),
      name: user.name,
      group: user.group_id !== null && user.cohort !== null ? { id: Number(user.group_id), cohort: user.cohort } : null,
    })),
    end_date: isoDate(row.end_date),
    docker: row.docker_name,
    validated: row.validated,
    deploy_token: row.deploy_token === null ? null : { stored_by: { id: Number(row.deploy_token.stored_by.id), name: row.deploy_token.stored_by.name } },
    created_at: (row.created_at instanceof Date ? row.created_at : new Date(row.created_at)).toISOString(),
  };
}
