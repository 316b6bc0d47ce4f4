import { stripVTControlCharacters } from 'node:util';
import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { forbidden, HttpError, serviceUnavailable } from '../../errors.ts';
import { mayPullImage, mayRunProjectContainer, notRunnableMessage } from '../../policies/container-policy.ts';
import { authorizeProject } from '../../policies/authorize-project.ts';
import { AgentError } from '../../agent/agent-error.ts';
import { AGENT_UNREACHABLE_MESSAGE, callAgent, isUnreachable } from '../../agent/agent-failure.ts';
import { type DockerProjectRow, loadDockerProject, loadDockerProjectByName } from '../../queries/projects.ts';
import type { ContainerCommandDeps } from '../../commands/container-deps.ts';
import { createProjectContainer } from '../../commands/create-project-container.ts';
import { changeContainerState } from '../../commands/change-container-state.ts';
import { recordContainerAct } from '../../commands/record-container-act.ts';
import { containerSituationOf, loadUserDockerCards } from '../../queries/user-dockers.ts';
import { presentUserDocker } from '../../presenters/present-user-docker.ts';
import type { LogLineView, PullProgressView } from '../../agent/container-views.ts';
import {
  changeUserDocker,
  containerLogs,
  containerStats,
  createUserDocker,
  followContainerLogs,
  listUserDockers,
  pullProjectImage,
} from '@devplein/contract/http/user-dockers';
import type { CurrentUser } from '../../queries/current-user.ts';
import { handle } from '../handle.ts';
import { writeLine } from '../../services/response-streams.ts';
import { presentContainerStats } from '../../presenters/present-container-stats.ts';
import { loadDeploySummaries } from '../../queries/deploys.ts';
import { presentDeploySummary } from '../../presenters/present-deploy.ts';

/** The container commands' deps: the app's own services (AppServices), nothing made here. */
function containerCommandDeps(deps: AppDeps): ContainerCommandDeps {
  return {
    knex: deps.knex,
    agents: deps.agents,
    logger: deps.logger.child({ component: 'containers' }),
    notices: deps.services.containerNotices,
    sshCommands: deps.services.sshCommands,
    deploys: deps.services.deploys,
  };
}

const logLineJson = (line: LogLineView) => ({ stream: line.stream, text: line.text, time: line.time });

const pullLineJson = (event: PullProgressView) => ({
  status: event.status,
  layerId: event.layerId,
  current: event.current,
  total: event.total,
  progress: event.progress,
});

/** Dutch text of a failed pull, for the NDJSON error line. */
async function pullErrorMessage(deps: ContainerCommandDeps, host: string | null, image: string, error: unknown): Promise<string> {
  const agentError = error instanceof AgentError ? error : null;
  if (agentError?.code === 'NOT_FOUND') return `Image ${image} bestaat niet.`;
  if (agentError?.code === 'INVALID_ARGUMENT') return `${image} is geen geldige image-naam.`;
  if (agentError?.unreachable) {
    // The agent answers UNAVAILABLE for an unreachable registry too: ask whether the agent itself is there.
    try {
      await deps.agents.forHost(host).info({ deadlineMs: 2_000 });
      return `De registry van ${image} is niet bereikbaar.`;
    } catch {
      return AGENT_UNREACHABLE_MESSAGE;
    }
  }
  return `Het downloaden van ${image} is mislukt.`;
}

/**
 * The student's container calls (spec §7): GET/POST /api/user/dockers, PUT
 * /api/user/dockers/{projectId}?action=, GET /api/user/container/{name} (logs; /follow as
 * server-sent events) and POST /api/user/dockers_images (pull progress as NDJSON). Members of
 * the project and admins only; everyone else gets 404.
 */
export function userDockerRoutes(deps: AppDeps): AppRouter {
  const commandDeps = containerCommandDeps(deps);
  const { knex } = deps;
  const router: AppRouter = new Router();
  const { logFollows: followSlots, statsWatches, responseStreams } = deps.services;

  const deploySummaryOf = async (project: DockerProjectRow) => presentDeploySummary(project, (await loadDeploySummaries(knex, [project.id])).get(project.id));

  handle(router, listUserDockers, async (_ctx, { caller }) => {
    const cards = await loadUserDockerCards(commandDeps, caller.id);
    const deploys = await loadDeploySummaries(knex, cards.map(({ project }) => project.id));
    return cards.map(({ project, situation }) => presentUserDocker(project, situation, presentDeploySummary(project, deploys.get(project.id))));
  });

  handle(router, createUserDocker, async (ctx, { caller: user, body: { id } }) => {
    const project = authorizeProject(user, await loadDockerProject(knex, id));
    const container = await createProjectContainer(commandDeps, project, { requestedBy: user.id });
    const docker = presentUserDocker(project, await containerSituationOf(commandDeps, project, container), await deploySummaryOf(project));
    await recordContainerAct(commandDeps, user, project, 'container.create', { state: docker.State });
    ctx.state.log.info({ userId: user.id, projectId: id }, 'container created');
    return [docker];
  });

  handle(router, changeUserDocker, async (ctx, { caller: user, params: { projectId }, query: { action } }) => {
    const project = authorizeProject(user, await loadDockerProject(knex, projectId));
    if (!mayRunProjectContainer(project, action)) throw forbidden(notRunnableMessage(project.validated));
    // Read before the agent acts: an action needs the database only up to there, so the answer
    // still comes when it goes away meanwhile (an action does not change the deploys anyway).
    const deploy = await deploySummaryOf(project);
    const container = await changeContainerState(commandDeps, project, action);
    const docker = presentUserDocker(project, await containerSituationOf(commandDeps, project, container), deploy);
    await recordContainerAct(commandDeps, user, project, `container.${action}`, { state: docker.State });
    ctx.state.log.info({ userId: user.id, projectId, action }, 'container action');
    return [docker];
  });

  const containerProject = async (user: CurrentUser, name: string): Promise<DockerProjectRow> => authorizeProject(user, await loadDockerProjectByName(knex, name));

  handle(router, containerLogs, async (ctx, { caller, params, query: { tail, format, download } }) => {
    const project = await containerProject(caller, params.name);
    const lines = await callAgent(() => deps.agents.forHost(project.host).containers.getContainerLogs({ projectId: project.id }, tail, { requestId: ctx.state.requestId }));
    if (download) ctx.attachment(`${project.name}.log`);
    if (format === 'json') return { lines: lines.map(logLineJson) };
    ctx.type = 'text/plain; charset=utf-8';
    // A text file has no colours: the download carries the lines without ANSI escape codes.
    const text = (line: LogLineView) => (download ? stripVTControlCharacters(line.text) : line.text);
    ctx.body = lines.map(text).join('\n') + (lines.length > 0 ? '\n' : '');
    return undefined;
  });

  handle(router, followContainerLogs, async (ctx, { caller, params, query: { tail } }) => {
    const project = await containerProject(caller, params.name);
    // One student must not hold open streams (and agent streams behind them) without end.
    const release = followSlots.take(caller.id);
    if (!release) throw new HttpError(429, `Je volgt al ${followSlots.perUser} logs tegelijk. Sluit eerst een ander logvenster.`);
    const { stream, signal } = responseStreams.answer(ctx, 'text/event-stream; charset=utf-8');
    stream.once('close', release);
    signal.addEventListener('abort', release, { once: true });
    const log = ctx.state.log;
    writeLine(stream, ': verbonden\n\n');
    void (async () => {
      try {
        for await (const line of deps.agents.forHost(project.host).containers.followContainerLogs({ projectId: project.id }, tail, { signal, requestId: ctx.state.requestId })) {
          writeLine(stream, `data: ${JSON.stringify(logLineJson(line))}\n\n`);
        }
      } catch (error) {
        const message = isUnreachable(error) ? AGENT_UNREACHABLE_MESSAGE : 'De logs konden niet gevolgd worden.';
        log.warn({ err: error, projectId: project.id }, 'following logs failed');
        writeLine(stream, `event: error\ndata: ${JSON.stringify({ message })}\n\n`);
      } finally {
        if (!stream.writableEnded) stream.end();
      }
    })();
  });

  // Live use of a running container for its card (issue 22): the same access as its logs.
  handle(router, containerStats, async (ctx, { caller, params }) => {
    const project = await containerProject(caller, params.name);
    ctx.set('Cache-Control', 'no-store');
    return presentContainerStats(await callAgent(() => statsWatches.read(project.host, project.id)));
  });

  handle(router, pullProjectImage, async (ctx, { caller: user, body: { image, project_id } }) => {
    const project = authorizeProject(user, await loadDockerProject(knex, project_id));
    if (!mayPullImage(user, project.image, image)) {
      const message = 'Je mag alleen de image van je eigen project downloaden.';
      throw new HttpError(422, message, { errors: { image: [message] } });
    }
    const cancel = new AbortController();
    const iterator = deps.agents.forHost(project.host).containers.pullImage(image, project.id, { requestId: ctx.state.requestId, signal: cancel.signal })[Symbol.asyncIterator]();
    // The first step decides the answer: an agent that is not there is a 503, not a stream.
    let first: IteratorResult<PullProgressView>;
    try {
      first = await iterator.next();
    } catch (error) {
      const message = await pullErrorMessage(commandDeps, project.host, image, error);
      if (message === AGENT_UNREACHABLE_MESSAGE) throw serviceUnavailable(message);
      ctx.type = 'application/x-ndjson; charset=utf-8';
      ctx.body = `${JSON.stringify({ error: message })}\n`;
      return;
    }
    const { stream, signal } = responseStreams.answer(ctx, 'application/x-ndjson; charset=utf-8');
    signal.addEventListener('abort', () => cancel.abort(), { once: true });
    const log = ctx.state.log;
    log.info({ userId: user.id, projectId: project.id, image }, 'image pull');
    void (async () => {
      try {
        let step = first;
        while (!step.done) {
          writeLine(stream, `${JSON.stringify(pullLineJson(step.value))}\n`);
          step = await iterator.next();
        }
        writeLine(stream, `${JSON.stringify({ done: true })}\n`);
      } catch (error) {
        if (!signal.aborted) {
          log.warn({ err: error, image }, 'image pull failed');
          writeLine(stream, `${JSON.stringify({ error: await pullErrorMessage(commandDeps, project.host, image, error) })}\n`);
        }
      } finally {
        if (!stream.writableEnded) stream.end();
      }
    })();
  });

  return router;
}
