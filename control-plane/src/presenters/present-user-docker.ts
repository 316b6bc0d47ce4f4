import type { DockerProjectRow } from '../queries/projects.ts';
import { STATUS_TEXT } from '../lib/container-states.ts';
import type { UserDocker } from '@devplein/contract/dockers';
import type { DockerDeploySummary } from '@devplein/contract/deploys';
import type { ContainerSituation } from '../queries/user-dockers.ts';

/** One card of the dockers page (the shared contract of contract/src/dockers.ts). */
export type UserDockerJson = UserDocker;

/** `deploy`: the project's git-deploy summary (presentDeploySummary; null when git deploy is not offered). */
export function presentUserDocker(project: DockerProjectRow, situation: ContainerSituation, deploy: DockerDeploySummary | null = null): UserDockerJson {
  const container = situation.kind === 'container' ? situation.container : null;
  return {
    Id: container?.id ?? null,
    Names: [`/${project.name}`],
    Image: project.image ?? container?.image ?? '',
    State: container ? container.state : situation.kind === 'state' ? situation.state : '',
    Status: container ? container.status : situation.kind === 'state' ? STATUS_TEXT[situation.state] : '',
    Labels: { projectId: project.id },
    project: { id: project.id, name: project.name, validated: project.validated, docker_id: project.docker_image_id },
    Users: project.users.map((user) => ({ id: user.id, name: user.name })),
    description: project.description,
    domain: project.domain,
    ssh: project.ssh,
    sshCommand: situation.kind === 'container' ? situation.sshCommand : null,
    wordpress: project.wordpress,
    autoStop: container?.autoStop ?? null,
    exit: container?.exit ?? null,
    deploy,
  };
}
