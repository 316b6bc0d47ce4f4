import Router from '@koa/router';
import { z } from 'zod';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, HttpError, notFound } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { mayDecideOnProjects, mayListAllProjects, mayListProjectRequests } from '../../policies/admin-project-policy.ts';
import { presentProject } from '../../presenters/present-project.ts';
import {
  GIT_URL_PATTERN,
  NO_DOCKER_IMAGE,
  OTHER_DOCKER_IMAGE,
  PROJECT_MESSAGES,
  PROJECT_REPRO_MAX,
} from '@devplein/contract/validation/projectRequest';
import { auditSnapshot, loadProject, loadProjects } from '../project-requests/project-queries.ts';
import { projectIdParams } from '../project-requests/schema.ts';
import { notifyContainer, removeProjectContainer } from '../../commands/user-dockers.ts';
import { mayHaveContainer } from '../../commands/docker-projects.ts';
import { NOT_CREATED, REJECTED, UNREACHABLE } from '../../commands/container-states.ts';
import { suspendProjectContainer } from '../../commands/suspend-project-container.ts';

const listQuery = z.object({
  all: z.enum(['true', 'false', '1', '0'], { error: "Gebruik all=true of laat all weg." }).optional(),
});

/** PUT /api/admin/projects/{id} {git?}: an optional git address to store with the decision. */
const decisionBody = z.object({
  git: z
    .union([z.string(), z.null()])
    .optional()
    .transform((value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null))
    .refine((value) => value === null || (value.length <= PROJECT_REPRO_MAX && GIT_URL_PATTERN.test(value)), PROJECT_MESSAGES.repro),
});

/**
 * What the dockers page shows for a project approved again that may still have its container:
 * the container's Docker state, 'Nog niet gecreëerd' without one, 'onbereikbaar' when its dev
 * server does not answer.
 */
async function containerStateOf(deps: Pick<AppDeps, 'agents'>, project: { id: number; host: string | null }): Promise<string> {
  try {
    const [container] = await deps.agents.forHost(project.host).containers.listContainers({ projectIds: [Number(project.id)] });
    return container?.state ?? NOT_CREATED;
  } catch {
    return UNREACHABLE;
  }
}

/** §9: an image has to be picked before a request for image option 1 can be approved. */
export const PICK_IMAGE_FIRST = 'Kies eerst een image.';

const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';

/**
 * The approvals screen's calls: GET /api/admin/projects (awaiting approval; ?all=true: all
 * approved projects), PUT /api/admin/projects/{id} (approve/reject toggle), DELETE.
 */
export function adminProjectRoutes(deps: AppDeps): AppRouter {
  const { knex, agents } = deps;
  const realtime = { realtime: deps.realtime, logger: deps.logger };
  const router: AppRouter = new Router();

  router.get('/api/admin/projects', async (ctx) => {
    const user = activeUser(ctx);
    // Members of team 1 may read the awaiting list (their profile counts it), nothing more.
    if (!mayListProjectRequests(user)) throw forbidden();
    const { all } = parseInput(ctx, listQuery, 'query');
    const approved = all === 'true' || all === '1';
    if (approved && !mayListAllProjects(user)) throw forbidden();
    const rows = await loadProjects(knex, (query) =>
      void (approved ? query.where('p.validated', true).clearOrder().orderBy('p.name') : query.whereNull('p.validated')),
    );
    ctx.body = rows.map(presentProject);
  });

  router.put('/api/admin/projects/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayDecideOnProjects(user)) throw forbidden();
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const { git } = parseInput(ctx, decisionBody, 'body');

    const { validated, project, approvedBefore } = await knex.transaction(async (trx) => {
      const project = await trx('projects')
        .where('id', id)
        .forUpdate()
        .first<
          | { id: number; name: string; domain: string; host: string | null; validated: boolean | null; docker_image_id: number | null; repro: string | null }
          | undefined
        >('id', 'name', 'domain', 'host', 'validated', 'docker_image_id', 'repro');
      if (!project) throw notFound(PROJECT_NOT_FOUND);
      // The button toggles: awaiting or rejected → approved, approved → rejected (§4).
      const next = project.validated !== true;
      const imageId = project.docker_image_id ?? NO_DOCKER_IMAGE;
      if (next && (imageId === OTHER_DOCKER_IMAGE || imageId === NO_DOCKER_IMAGE)) {
        throw new HttpError(422, PICK_IMAGE_FIRST, { errors: { docker_id: [PICK_IMAGE_FIRST] } });
      }
      // A project approved before may still have its container: then its Docker state stands
      // on approval, and a reject has a container to stop (a request never approved has none).
      const approvedBefore = await mayHaveContainer(trx, project);
      const changes: Record<string, unknown> = { validated: next, updated_at: trx.fn.now() };
      if (git !== null) changes.repro = git;
      await trx('projects').where('id', id).update(changes);
      await recordAudit(trx, {
        actorId: user.id,
        action: next ? 'project.approve' : 'project.reject',
        subjectType: 'project',
        subjectId: id,
        before: { validated: project.validated, repro: project.repro },
        after: { validated: next, repro: git ?? project.repro },
      });
      return { validated: next, project, approvedBefore };
    });
    ctx.state.log.info({ userId: user.id, projectId: id, validated }, 'project decision');
    // A rejected project cannot run: its container stops and its site goes off the proxy (after
    // the commit, never inside the transaction; a dev server that does not answer is caught up
    // by the reconcile of unapproved containers).
    if (!validated && approvedBefore) await suspendProjectContainer({ knex, agents, logger: ctx.state.log }, { ...project, id: Number(project.id) }, { actorId: user.id, reason: 'rejected' });
    // The members' dockers page follows the decision live (§4 states).
    if (!validated) await notifyContainer(realtime, project.name, REJECTED);
    else await notifyContainer(realtime, project.name, approvedBefore ? await containerStateOf(deps, project) : NOT_CREATED);
    ctx.body = { validated };
  });

  router.delete('/api/admin/projects/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayDecideOnProjects(user)) throw forbidden();
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const found = await loadProject(knex, id);
    if (!found) throw notFound(PROJECT_NOT_FOUND);
    // The container goes first, outside the transaction; agent down → 503, the project stays.
    await removeProjectContainer({ knex, agents }, found);
    await knex.transaction(async (trx) => {
      const before = await loadProject(trx, id);
      if (!before) throw notFound(PROJECT_NOT_FOUND);
      await trx('projects').where('id', id).delete();
      await recordAudit(trx, {
        actorId: user.id,
        action: 'project.delete',
        subjectType: 'project',
        subjectId: id,
        before: auditSnapshot(before),
      });
    });
    ctx.state.log.info({ userId: user.id, projectId: id }, 'project deleted by admin');
    ctx.status = 204;
  });

  return router;
}
