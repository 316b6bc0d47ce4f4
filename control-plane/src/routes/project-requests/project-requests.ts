import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../queries/current-user.ts';
import { unstorableTextErrors } from '../../middlewares/validate.ts';
import { notFound } from '../../errors.ts';
import { editNeedsApproval, hasProjectQuota, isProjectMember, mayChangeProject } from '../../policies/project-policy.ts';
import { isAdmin } from '../../policies/roles.ts';
import { presentProject } from '../../presenters/present-project.ts';
import type { ProjectRow } from '../../queries/projects.ts';
import { problemsByField, projectRequestSchema, type ProjectRequestData } from '@devplein/contract/validation/projectRequest';
import { loadProject, mayHaveContainer } from '../../queries/projects.ts';
import { refused } from '../../queries/project-request-errors.ts';
import { suspendProjectContainer } from '../../commands/suspend-project-container.ts';
import { AWAITING_APPROVAL } from '../../lib/container-states.ts';
import { createProject } from '../../commands/create-project.ts';
import { updateProject, type ProjectColumns } from '../../commands/update-project.ts';
import { deleteProject } from '../../commands/delete-project.ts';
import { listImageOptionNames } from '../../queries/docker-images.ts';
import { syncProjectAccess } from '../../commands/sync-project-access.ts';
import type { AgentFleet } from '../../agent/agent-fleet.ts';
import { deleteProjectRequest, editProject, listImageChoices, ownProject, requestProject } from '@devplein/contract/http/project-requests';
import { handle } from '../handle.ts';
import { gitPolicyOf } from '../../lib/git-policy.ts';

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

/** The dev server of a project: the one whose site domain holds its domain (the schema made sure one does). */
const hostOf = (agents: AgentFleet, domain: string): string => (agents.hostOfDomain(domain) ?? agents.link(null)).name;

/**
 * An edit may not move a project that may have a container to another dev server: its
 * container, route and SSH port stay where they are. Without a container the host follows.
 */
async function checkHostKept(knex: AppDeps['knex'], agents: AgentFleet, before: ProjectRow, domain: string): Promise<void> {
  const now = agents.link(before.host);
  const after = hostOf(agents, domain);
  if (after === now.name || !(await mayHaveContainer(knex, before))) return;
  throw refused({ domain: [`Dit domein hoort bij ontwikkelserver ${after}, maar dit project staat op ${now.name}. Kies een domein dat eindigt op .${now.siteDomain}.`] });
}

const projectColumns = (agents: AgentFleet, input: ProjectRequestData): ProjectColumns => ({
  name: input.name,
  description: input.description,
  domain: input.domain.toLowerCase(),
  host: hostOf(agents, input.domain.toLowerCase()),
  visible: input.visible,
  repro: input.repro,
  ...(input.branch === undefined ? {} : { deploy_branch: input.branch }),
  end_date: input.end_date,
  docker_image_id: input.docker_id,
});

/**
 * Routes of project requests by students (contract/src/http/project-requests.ts): POST/GET/PUT/DELETE
 * /api/user/project and the image options GET /api/dockers. The rules of §5 are the shared schema the form uses too.
 */
export function projectRequestRoutes(deps: AppDeps): AppRouter {
  const { knex, config, agents } = deps;
  const hostAccess = { knex, agents, logger: deps.logger.child({ component: 'host-access' }), locks: deps.services.locks };
  const router: AppRouter = new Router();
  // The site domains of the linked dev servers at the time of the request (a server may join or
  // be revoked while the process runs); the schema is rebuilt only when they change.
  // The repository address must pass the school's git policy (issue 23), as in the form.
  let schemaOf: { key: string; schema: ReturnType<typeof projectRequestSchema> } | undefined;
  const gitPolicy = gitPolicyOf(config);
  const currentSchema = () => {
    const domains = agents.links.map((link) => link.siteDomain);
    const key = domains.join(' ');
    if (schemaOf?.key !== key) schemaOf = { key, schema: projectRequestSchema(domains, gitPolicy) };
    return schemaOf.schema;
  };

  const parseBody = (ctx: AppContext) => parseRequest(ctx, currentSchema());
  /** The project as the member or admin may change it; 404 for everyone else. */
  const changeable = async (user: CurrentUser, id: number): Promise<ProjectRow> => {
    const row = await loadProject(knex, id);
    if (!row || !mayChangeProject(user, row.users.map((member) => member.id))) throw notFound(PROJECT_NOT_FOUND);
    return row;
  };
  /** The project after a write (gone meanwhile: 404). */
  const presentedProject = async (id: number) => {
    const row = await loadProject(knex, id);
    if (!row) throw notFound(PROJECT_NOT_FOUND);
    return presentProject(row);
  };

  handle(router, listImageChoices, async () => (await listImageOptionNames(knex)).map((row) => ({ id: row.id, name: row.name })));

  handle(
    router,
    requestProject,
    async (ctx, { caller: user, body: input }) => {
      // The creator is always a member, first; the others in the order given.
      const memberIds = [user.id, ...input.users.filter((id) => id !== user.id)];
      // Students have a quota; the command locks the creator's row to hold it.
      const quota = hasProjectQuota(user) ? config.PROJECT_QUOTA : null;
      const projectId = await createProject(knex, user.id, input, projectColumns(agents, input), memberIds, quota);
      ctx.state.log.info({ userId: user.id, projectId }, 'project requested');
      const project = await presentedProject(projectId);
      ctx.status = 201;
      return project;
    },
    { parseBody },
  );

  // Beyond the spec: the edit form (/dockers/create?id=…) loads the request it edits.
  handle(router, ownProject, async (_ctx, { caller: user, params: { id } }) => presentProject(await changeable(user, id)));

  handle(
    router,
    editProject,
    async (ctx, request) => {
      const { caller: user, params: { id } } = request;
      // Someone else's project is a 404 whatever the body (the body is read after this).
      const before = await changeable(user, id);
      const input = request.body;
      const memberIds = membersAfterEdit(user, before, input.users);
      await checkHostKept(knex, agents, before, input.domain.toLowerCase());

      const validated = before.validated === true && editNeedsApproval(user, before, projectColumns(agents, input)) ? null : before.validated;
      await updateProject(knex, before, input, { ...projectColumns(agents, input), validated }, memberIds, isAdmin(user) ? user.id : null, { actorId: user.id, secrets: deps.secrets });
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
        await deps.services.containerNotices.send(before.name, AWAITING_APPROVAL);
      }
      return presentedProject(id);
    },
    { parseBody },
  );

  // The container goes first (outside any transaction); the agent not answering → 503 and the
  // project stays. Then the row (its members and thumbnail go with it by cascade).
  handle(router, deleteProjectRequest, async (ctx, { caller: user, params: { id } }) => {
    const before = await changeable(user, id);
    const memberIds = before.users.map((member) => member.id);
    // An admin deleting someone else's project is an admin write.
    const audit = isAdmin(user) && !isProjectMember(user, memberIds);
    const { containerRemoved } = await deleteProject({ knex, agents }, before, { actorId: user.id, audit });
    if (containerRemoved) ctx.state.log.info({ userId: user.id, projectId: id }, 'container removed with its project');
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
