import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { HttpError, notFound } from '../errors.ts';
import { Project } from '../models/Project.ts';
import { mayHaveContainer } from '../queries/projects.ts';
import type { AppServices } from '../app-context.ts';
import { NO_DOCKER_IMAGE, OTHER_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import { NOT_CREATED, REJECTED, UNREACHABLE } from '../lib/container-states.ts';
import { suspendProjectContainer } from './suspend-project-container.ts';
import { dropTokenOfMovedRepository } from './deploy-credentials.ts';

/** §9: an image has to be picked before a request for image option 1 can be approved. */
export const PICK_IMAGE_FIRST = 'Kies eerst een image.';

export const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';

export interface ApproveProjectDeps {
  knex: Knex;
  agents: AgentFleet;
  /** The members' dockers pages follow the decision live. */
  notices: AppServices['containerNotices'];
  /** The request's logger (the decision and the suspension are logged with the request). */
  log: Logger;
}

/**
 * What the dockers page shows for a project approved again that may still have its container:
 * the container's Docker state, 'Nog niet gecreëerd' without one, 'onbereikbaar' when its dev
 * server does not answer.
 */
async function containerStateOf(agents: AgentFleet, project: { id: number; host: string | null }): Promise<string> {
  try {
    const [container] = await agents.forHost(project.host).containers.listContainers({ projectIds: [Number(project.id)] });
    return container?.state ?? NOT_CREATED;
  } catch {
    return UNREACHABLE;
  }
}

/**
 * PUT /api/admin/projects/{id}: the approve button toggles (§4): awaiting or rejected → approved,
 * approved → rejected; `git` (when given) is stored with the decision. Returns the new decision.
 */
export async function approveProject(
  deps: ApproveProjectDeps,
  actorId: number,
  id: number,
  git: string | null,
): Promise<{ validated: boolean }> {
  const { knex, agents, log } = deps;
  const { validated, project, approvedBefore } = await knex.transaction(async (trx) => {
    const project = await Project.query(trx)
      .findById(id)
      .forUpdate()
      .select('id', 'name', 'domain', 'host', 'validated', 'docker_image_id', 'repro');
    if (!project) throw notFound(PROJECT_NOT_FOUND);
    const next = project.validated !== true;
    const imageId = project.docker_image_id ?? NO_DOCKER_IMAGE;
    if (next && (imageId === OTHER_DOCKER_IMAGE || imageId === NO_DOCKER_IMAGE)) {
      throw new HttpError(422, PICK_IMAGE_FIRST, { errors: { docker_id: [PICK_IMAGE_FIRST] } });
    }
    // A project approved before may still have its container: then its Docker state stands
    // on approval, and a reject has a container to stop (a request never approved has none).
    const approvedBefore = await mayHaveContainer(trx, project);
    // updated_at is set by Project.$beforeUpdate.
    await Project.query(trx).findById(id).patch(git !== null ? { validated: next, repro: git } : { validated: next });
    // A new address drops a token stored for the old one (issue 35).
    if (git !== null) await dropTokenOfMovedRepository(trx, id, git, actorId);
    await recordAudit(trx, {
      actorId,
      action: next ? 'project.approve' : 'project.reject',
      subjectType: 'project',
      subjectId: id,
      before: { validated: project.validated, repro: project.repro },
      after: { validated: next, repro: git ?? project.repro },
    });
    return { validated: next, project: { id: Number(project.id), name: project.name, domain: project.domain, host: project.host }, approvedBefore };
  });
  log.info({ userId: actorId, projectId: id, validated }, 'project decision');
  // A rejected project cannot run: its container stops and its site goes off the proxy (after
  // the commit, never inside the transaction; a dev server that does not answer is caught up
  // by the reconcile of unapproved containers).
  if (!validated && approvedBefore) await suspendProjectContainer({ knex, agents, logger: log }, project, { actorId, reason: 'rejected' });
  // The members' dockers page follows the decision live (§4 states).
  if (!validated) await deps.notices.send(project.name, REJECTED);
  else await deps.notices.send(project.name, approvedBefore ? await containerStateOf(agents, project) : NOT_CREATED);
  return { validated };
}
