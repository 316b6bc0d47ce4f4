import { recordAudit } from '../audit/record-audit.ts';
import { HttpError, notFound } from '../errors.ts';
import { callAgent } from '../agent/agent-failure.ts';
import { loadScreenshotTarget, screenshotStateOf, type AdminDockerDeps } from '../queries/admin-dockers.ts';
import type { AppServices } from '../app-context.ts';
import type { ScreenshotState } from '@devplein/contract/dockers';

const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';
export const NOT_RUNNING_MESSAGE = 'Dit project heeft geen draaiende container: er valt niets te fotograferen. Start de container eerst.';

/**
 * 'ververs screenshot': queues a capture of the project's site (one that starts after this
 * request: ThumbnailCapturer.capture) and answers at once with the state from just before (inFlight true): a later state with another
 * lastAttemptAt is the outcome; the same lastAttemptAt once inFlight is false means the agent
 * could not run the capture at all (agent or browser down: nothing recorded). 404 for an unknown project, 409 when the
 * agent says the project has no running container, 503 when the agent does not answer.
 */
export async function requestScreenshot(deps: AdminDockerDeps & { thumbnails: AppServices['thumbnails'] }, actorId: number, projectId: number): Promise<ScreenshotState> {
  const project = await loadScreenshotTarget(deps.knex, projectId);
  if (!project) throw notFound(PROJECT_NOT_FOUND);
  // A request that shares a capture already asked for needs no checks of its own.
  if (!deps.thumbnails.wouldJoin(projectId)) {
    const containers = await callAgent(() => deps.agents.forHost(project.host).containers.listContainers({ projectIds: [projectId] }));
    const running = containers.some((container) => container.projectId === projectId && container.state === 'running');
    if (!running) throw new HttpError(409, NOT_RUNNING_MESSAGE);
    await recordAudit(deps.knex, { actorId, action: 'thumbnail.capture', subjectType: 'project', subjectId: projectId, after: { domain: project.domain } });
  }
  // The state as it was when the capture was asked for (so a caller can tell a new attempt by
  // lastAttemptAt), with the capture now in flight.
  const before = await screenshotStateOf(deps, projectId);
  deps.thumbnails.capture(projectId).catch(() => undefined);
  return { ...before, inFlight: true };
}
