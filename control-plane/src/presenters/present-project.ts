import { NO_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import type { ProjectJson, DockerImageOptionJson } from '@devplein/contract/projects';
import type { ProjectRow } from '../queries/projects.ts';
export type { ProjectJson, DockerImageOptionJson };

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
