import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput, unstorableTextErrors } from '../../middlewares/validate.ts';
import { HttpError, notFound, validationFailed, type FieldErrors } from '../../errors.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { editNeedsApproval, hasProjectQuota, isProjectMember, mayChangeProject } from '../../policies/project-policy.ts';
import { isAdmin } from '../../policies/roles.ts';
import { presentProject, type DockerImageOptionJson, type ProjectRow } from '../../presenters/present-project.ts';
import { problemsByField, projectRequestSchema, type ProjectRequestData } from '@devplein/contract/validation/projectRequest';
import { auditSnapshot, loadProject, uniqueViolationOf } from './project-queries.ts';
import { notifyContainer, removeProjectContainer } from '../../commands/user-dockers.ts';
import { suspendProjectContainer } from '../../commands/suspend-project-container.ts';
import { AWAITING_APPROVAL } from '../../commands/container-states.ts';
import { mayHaveContainer } from '../../commands/docker-projects.ts';
import { syncProjectAccess } from '../../commands/sync-project-access.ts';
import type { AgentFleet } from '../../agent/agent-fleet.ts';
import { projectIdParams } from './schema.ts';

const NAME_TAKEN = 'Deze naam is al in gebruik. Kies een andere naam.';
const DOMAIN_TAKEN = 'Dit domein is al in gebruik. Kies een ander domein.';
const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';

/**
 * The body by the shared form schema; problems as 422 per top-level field (the form joins
 * them into one alert, so 'users' rather than 'users.0').
 */
function parseRequest(ctx: AppContext, schema: ReturnType<typeof projectRequestSchema>): ProjectRequestData {
  const raw: unknown = (ctx.request as { body?: unknown }).body ?? {};
  const result = schema.safeParse(raw);
  if (!result.success) throw refused(problemsByField(result.error));
  // Per top-level field, as problemsByField has it.
  const unstorable = Object.fromEntries(Object.entries(unstorableTextErrors(result.data)).map(([field, messages]) => [field.split('.')[0] as string, messages]));
  if (Object.keys(unstorable).length > 0) throw refused(unstorable);
  return result.data;
}

/** A 422 whose message is the first field message (what a caller without the field list shows). */
function refused(errors: FieldErrors): HttpError {
  const first = Object.values(errors).flat()[0];
  const error = validationFailed(errors);
  return first === undefined ? error : new HttpError(422, first, error.extra);
}

const quotaMessage = (quota: number): string =>
  `Je hebt al ${quota} ${quota === 1 ? 'project' : 'projecten'} aangevraagd; meer mag niet. Verwijder eerst een project dat je niet meer gebruikt, of vraag een docent om hulp.`;

/**
 * The projects that count against a student's quota: the ones they requested and are still a
 * member of. Being added to others' projects uses none of it; a request they were taken off is
 * no longer theirs to delete, so it stops counting too.
 */
async function requestedProjectCount(db: Knex.Transaction, userId: number): Promise<number> {
  const row = await db('projects as p')
    .join('project_user as pu', function joinMember() {
      this.on('pu.project_id', 'p.id').andOn('pu.user_id', 'p.created_by');
    })
    .where('p.created_by', userId)
    .count<{ count: string | number }[]>('* as count')
    .first();
  return Number(row?.count ?? 0);
}

/**
 * The checks that need the database: the image exists, the members exist and are activated,
 * name and domain are free (apart from the project itself). All problems at once, per field.
 */
async function checkAgainstDatabase(db: Knex.Transaction, input: ProjectRequestData, memberIds: number[], ownId: number | null): Promise<void> {
  const errors: FieldErrors = {};
  const image = await db('docker_images').where('id', input.docker_id).first('id');
  if (!image) errors.docker_id = ['Deze image bestaat niet. Kies een image uit de lijst.'];

  const found = await db('users')
    .whereIn('id', memberIds)
    .whereNotNull('email_verified_at')
    .whereNull('disabled_at')
    .select<{ id: number }[]>('id');
  const active = new Set(found.map((row) => Number(row.id)));
  const missing = memberIds.filter((id) => !active.has(id));
  if (missing.length > 0) {
    errors.users = missing.map((id) => `Gebruiker ${id} bestaat niet of is niet geactiveerd.`);
  }

  const sameName = await db('projects').where('name', input.name).modify((q) => void (ownId !== null && q.whereNot('id', ownId))).first('id');
  if (sameName) errors.name = [NAME_TAKEN];
  const sameDomain = await db('projects').where('domain', input.domain).modify((q) => void (ownId !== null && q.whereNot('id', ownId))).first('id');
  if (sameDomain) errors.domain = [DOMAIN_TAKEN];

  if (Object.keys(errors).length > 0) throw refused(errors);
}

/** A unique violation that slipped past the check (two requests at once) as the same 422. */
function asTakenError(error: unknown): unknown {
  const constraint = uniqueViolationOf(error);
  if (constraint === null) return error;
  if (constraint.includes('domain')) return refused({ domain: [DOMAIN_TAKEN] });
  return refused({ name: [NAME_TAKEN] });
}

/** The dev server of a project: the one whose site domain holds its domain (the schema made sure one does). */
const hostOf = (agents: AgentFleet, domain: string): string => (agents.hostOfDomain(domain) ?? agents.link(null)).name;

/**
 * An edit may not move a project that may have a container to another dev server: its
 * container, route and SSH port stay where they are. Without a container the host follows.
 */
async function checkHostKept(knex: Knex, agents: AgentFleet, before: ProjectRow, domain: string): Promise<void> {
  const now = agents.link(before.host);
  const after = hostOf(agents, domain);
  if (after === now.name || !(await mayHaveContainer(knex, before))) return;
  throw refused({ domain: [`Dit domein hoort bij ontwikkelserver ${after}, maar dit project staat op ${now.name}. Kies een domein dat eindigt op .${now.siteDomain}.`] });
}

const projectColumns = (agents: AgentFleet, input: ProjectRequestData) => ({
  name: input.name,
  description: input.description,
  domain: input.domain.toLowerCase(),
  host: hostOf(agents, input.domain.toLowerCase()),
  visible: input.visible,
  repro: input.repro,
  end_date: input.end_date,
  docker_image_id: input.docker_id,
});

async function replaceMembers(db: Knex.Transaction, projectId: number, memberIds: number[]): Promise<void> {
  await db('project_user').where('project_id', projectId).delete();
  if (memberIds.length > 0) {
    await db('project_user').insert(memberIds.map((userId, position) => ({ project_id: projectId, user_id: userId, position })));
  }
}

/**
 * Routes of project requests by students: POST/GET/PUT/DELETE /api/user/project and the image
 * options GET /api/dockers. The rules of §5 are the shared schema the form uses too.
 */
export function projectRequestRoutes(deps: AppDeps): AppRouter {
  const { knex, config, agents } = deps;
  const hostAccess = { knex, agents, logger: deps.logger.child({ component: 'host-access' }) };
  const router: AppRouter = new Router();
  const schema = projectRequestSchema(agents.links.map((link) => link.siteDomain));

  router.get('/api/dockers', async (ctx) => {
    activeUser(ctx);
    const rows = await knex('docker_images').select<DockerImageOptionJson[]>('id', 'name').orderBy('id');
    ctx.body = rows.map((row) => ({ id: row.id, name: row.name }));
  });

  router.post('/api/user/project', async (ctx) => {
    const user = activeUser(ctx);
    const input = parseRequest(ctx, schema);
    // The creator is always a member, first; the others in the order given.
    const memberIds = [user.id, ...input.users.filter((id) => id !== user.id)];

    let projectId: number;
    try {
      projectId = await knex.transaction(async (trx) => {
        if (hasProjectQuota(user)) {
          // Lock the creator's row so two requests at once cannot both pass the quota.
          await trx('users').where('id', user.id).forUpdate().first('id');
          const count = await requestedProjectCount(trx, user.id);
          if (count >= config.PROJECT_QUOTA) {
            const message = quotaMessage(config.PROJECT_QUOTA);
            throw new HttpError(422, message, { errors: { project: [message] } });
          }
        }
        await checkAgainstDatabase(trx, input, memberIds, null);
        const [inserted] = await trx('projects')
          .insert({ ...projectColumns(agents, input), validated: null, created_by: user.id })
          .returning<{ id: number }[]>('id');
        const id = Number(inserted?.id);
        await replaceMembers(trx, id, memberIds);
        return id;
      });
    } catch (error) {
      throw asTakenError(error);
    }
    ctx.state.log.info({ userId: user.id, projectId }, 'project requested');
    const row = await loadProject(knex, projectId);
    ctx.status = 201;
    ctx.body = row ? presentProject(row) : { id: projectId };
  });

  // Beyond the spec: the edit form (/dockers/create?id=…) loads the request it edits.
  router.get('/api/user/project/:id', async (ctx) => {
    const user = activeUser(ctx);
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const row = await loadProject(knex, id);
    if (!row || !mayChangeProject(user, row.users.map((member) => member.id))) throw notFound(PROJECT_NOT_FOUND);
    ctx.body = presentProject(row);
  });

  router.put('/api/user/project/:id', async (ctx) => {
    const user = activeUser(ctx);
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const before = await loadProject(knex, id);
    if (!before || !mayChangeProject(user, before.users.map((member) => member.id))) throw notFound(PROJECT_NOT_FOUND);
    const input = parseRequest(ctx, schema);
    const memberIds = membersAfterEdit(user, before, input.users);
    await checkHostKept(knex, agents, before, input.domain.toLowerCase());

    const validated = before.validated === true && editNeedsApproval(user, before, projectColumns(agents, input)) ? null : before.validated;
    try {
      await knex.transaction(async (trx) => {
        await checkAgainstDatabase(trx, input, memberIds, id);
        await trx('projects')
          .where('id', id)
          .update({ ...projectColumns(agents, input), validated, updated_at: trx.fn.now() });
        await replaceMembers(trx, id, memberIds);
        if (isAdmin(user)) {
          const after = await loadProject(trx, id);
          await recordAudit(trx, {
            actorId: user.id,
            action: 'project.update',
            subjectType: 'project',
            subjectId: id,
            before: auditSnapshot(before),
            after: after ? auditSnapshot(after) : null,
          });
        }
      });
    } catch (error) {
      throw asTakenError(error);
    }
    ctx.state.log.info({ userId: user.id, projectId: id }, 'project request edited');
    // After the commit, outside any transaction: the container's keys follow the members at once,
    // and whoever left loses their open SSH sessions there (retried by the job when its dev
    // server does not answer; the edit stands either way).
    const beforeIds = before.users.map((member) => member.id);
    const left = beforeIds.filter((memberId) => !memberIds.includes(memberId));
    const changed = left.length > 0 || memberIds.some((memberId) => !beforeIds.includes(memberId));
    if (changed && (before.validated === true || (await mayHaveContainer(knex, before)))) {
      const access = await syncProjectAccess(hostAccess, id, { reason: 'project.members', endSessionsOf: left, actorId: user.id });
      if (!access.complete) ctx.state.log.warn({ projectId: id, notDone: access.notDone }, 'the container has not followed the member change yet');
    }
    if (before.validated === true && validated === null) {
      // Back to awaiting approval: it cannot run until a teacher approves the change (after the
      // commit; the reconcile of unapproved containers catches up with a server that does not answer).
      await suspendProjectContainer({ knex, agents, logger: ctx.state.log }, before, { actorId: user.id, reason: 'awaiting' });
      await notifyContainer({ realtime: deps.realtime, logger: ctx.state.log }, before.name, AWAITING_APPROVAL);
    }
    const row = await loadProject(knex, id);
    ctx.body = row ? presentProject(row) : { id };
  });

  // The container goes first (outside any transaction); the agent not answering → 503 and the
  // project stays. Then the row (its members and thumbnail go with it by cascade).
  router.delete('/api/user/project/:id', async (ctx) => {
    const user = activeUser(ctx);
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const before = await loadProject(knex, id);
    const memberIds = before?.users.map((member) => member.id) ?? [];
    if (!before || !mayChangeProject(user, memberIds)) throw notFound(PROJECT_NOT_FOUND);
    const removed = await removeProjectContainer({ knex, agents }, before);
    if (removed) ctx.state.log.info({ userId: user.id, projectId: id }, 'container removed with its project');
    await knex.transaction(async (trx) => {
      await trx('projects').where('id', id).delete();
      // An admin deleting someone else's project is an admin write.
      if (isAdmin(user) && !isProjectMember(user, memberIds)) {
        await recordAudit(trx, {
          actorId: user.id,
          action: 'project.delete',
          subjectType: 'project',
          subjectId: id,
          before: auditSnapshot(before),
        });
      }
    });
    ctx.state.log.info({ userId: user.id, projectId: id }, 'project deleted');
    ctx.status = 204;
  });

  return router;
}

/**
 * Members after an edit: as given, in that order. A student who edits stays a member (the form
 * always shows the current user, §5); an admin editing someone's request is not added.
 */
function membersAfterEdit(user: CurrentUser, before: ProjectRow, given: number[]): number[] {
  if (isAdmin(user) && !isProjectMember(user, before.users.map((member) => member.id))) return given;
  return given.includes(user.id) ? given : [user.id, ...given];
}
