import {
  changeDeploySettings,
  deployDetail,
  deployPanel,
  deploySettings,
  makeDeployKey as makeDeployKeyEndpoint,
  renewWebhookSecret,
  startDeploy as startDeployEndpoint,
} from '@devplein/contract/http/deploys';
import type { BodyOf } from '@devplein/contract/http/endpoint';
import { call, keyOf, useEndpoint } from '../endpoints.ts';
import {
  DEPLOY_STATUS_LABELS,
  DEPLOY_TRIGGER_LABELS,
  type DeployAuth,
  type DeployLogLine,
  type DeploySettingsView,
  type DockerDeploySummary,
  type ProjectDeploy,
  type ProjectDeployDetail,
  type ProjectDeployPanel,
} from '@devplein/contract/deploys';

export { DEPLOY_STATUS_LABELS, DEPLOY_TRIGGER_LABELS };
export type { DeployAuth, DeployLogLine, DeploySettingsView, DockerDeploySummary, ProjectDeploy, ProjectDeployDetail, ProjectDeployPanel };

/** The school's git policy (the git hosts it allows); undefined while it loads or when it could not be loaded (the form then checks only the shape). */
export function useDeploySettings() {
  return useEndpoint(deploySettings, {}, { shouldRetryOnError: false, revalidateOnFocus: false });
}

/** The SWR key of a project's deploy panel (the live updates write into it). */
export const deployPanelKey = (projectId: number): string | null => keyOf(deployPanel, { params: { projectId } });

/** The card's Git-deploy panel (history, webhook, deploy key); asked for only while the panel is open (`enabled`). */
export function useDeployPanel(projectId: number, enabled: boolean) {
  return useEndpoint(deployPanel, enabled ? { params: { projectId } } : null, { revalidateOnFocus: false });
}

/** One deploy with its log (null deployId: nothing asked). */
export function useDeployDetail(projectId: number, deployId: number | null) {
  return useEndpoint(deployDetail, deployId === null ? null : { params: { projectId, deployId } }, { revalidateOnFocus: false });
}

/**
 * The queued deploy of an answer to Bijwerken or 'terug naar deze versie'; null when the server
 * answered only its id (the queue had taken it over at once): the live update brings its state.
 */
const queuedDeploy = (answer: ProjectDeploy | { id: number }): ProjectDeploy | null => ('status' in answer ? answer : null);

/** POST …/deploys {}: 'Bijwerken', deploy the newest commit of the branch now (202 with the queued deploy). */
export async function startDeploy(projectId: number): Promise<ProjectDeploy | null> {
  return queuedDeploy(await call(startDeployEndpoint, { params: { projectId }, body: {} }));
}

/** POST …/deploys { rollbackOf }: 'terug naar deze versie', deploy that earlier deploy's commit again. */
export async function rollBackTo(projectId: number, deployId: number): Promise<ProjectDeploy | null> {
  return queuedDeploy(await call(startDeployEndpoint, { params: { projectId }, body: { rollbackOf: deployId } }));
}

/** The body of PUT …/deploy-settings (the contract's); `token` only when a new one is typed (a stored token is never sent back). */
export type DeploySettingsInput = BodyOf<typeof changeDeploySettings>;

/** PUT /api/user/dockers/{projectId}/deploy-settings: branch and how git signs in. A 422 carries Dutch field errors. */
export function saveDeploySettings(projectId: number, input: DeploySettingsInput): Promise<ProjectDeployPanel> {
  return call(changeDeploySettings, { params: { projectId }, body: input });
}

/** POST /api/user/dockers/{projectId}/webhook-secret: a new webhook secret (the old one stops working). */
export function newWebhookSecret(projectId: number): Promise<ProjectDeployPanel> {
  return call(renewWebhookSecret, { params: { projectId } });
}

/** POST /api/user/dockers/{projectId}/deploy-key: makes the project's deploy key on its dev server (a read never does). */
export function makeDeployKey(projectId: number): Promise<ProjectDeployPanel> {
  return call(makeDeployKeyEndpoint, { params: { projectId } });
}

/** The sentence the issue asks for, word for word, with a project's deploy key (the card and the guide). */
export const DEPLOY_KEY_INSTRUCTION = 'Voeg deze sleutel toe als deploy key met alleen-lezen rechten';

/** A deploy still to finish: 'Bijwerken' waits for it. */
export function deployIsActive(deploy: Pick<ProjectDeploy, 'status'> | null | undefined): boolean {
  return deploy?.status === 'queued' || deploy?.status === 'running';
}

/** Whether the card shows a deploy's log: while it runs and after it failed. */
export function deployShowsLog(deploy: Pick<ProjectDeploy, 'status'> | null | undefined): boolean {
  return deploy?.status === 'running' || deploy?.status === 'failed';
}

/** How far a deploy has come: it only moves forward (queued → running → one of the ends). */
const DEPLOY_PROGRESS: Record<ProjectDeploy['status'], number> = { queued: 0, running: 1, deployed: 2, failed: 2, superseded: 2 };

/**
 * The later of what the page knew (`known`) and what just came (`incoming`): a newer deploy, or
 * the same deploy as far along as either saw it. An answer can leave the server before a live
 * event of the same deploy and arrive after it (a deploy without a deploy key fails within
 * milliseconds); the card must not go back to the older state.
 */
export function laterDeploy(known: ProjectDeploy | null, incoming: ProjectDeploy | null): ProjectDeploy | null {
  if (known === null) return incoming;
  if (incoming === null || known.id > incoming.id) return known;
  if (known.id === incoming.id && DEPLOY_PROGRESS[known.status] > DEPLOY_PROGRESS[incoming.status]) return known;
  return incoming;
}

/**
 * The card's summary after a live DeployUpdated or an answer naming one deploy: the deploy becomes
 * the newest (unless an even newer one, or the same one further along, is already known) and,
 * once deployed, the current one.
 */
export function applyDeployUpdate(summary: DockerDeploySummary, deploy: ProjectDeploy): DockerDeploySummary {
  const current = deploy.status === 'deployed' ? laterDeploy(summary.current, deploy) : summary.current;
  return { ...summary, latest: laterDeploy(summary.latest, deploy), current };
}

/**
 * A card's summary from an answer (Aanmaken, Starten…) merged with the one the page holds: the
 * answer's repository and notices, each deploy as far along as either saw it. An answer without
 * a summary keeps the page's.
 */
export function mergeDeploySummaries(known: DockerDeploySummary | null, incoming: DockerDeploySummary | null): DockerDeploySummary | null {
  if (known === null || incoming === null) return incoming ?? known;
  return { ...incoming, latest: laterDeploy(known.latest, incoming.latest), current: laterDeploy(known.current, incoming.current) };
}

/** The panel's history with a live update folded in (newest first, at most the server's 20). */
export function applyDeployToHistory(deploys: readonly ProjectDeploy[], deploy: ProjectDeploy): ProjectDeploy[] {
  const others = deploys.filter((each) => each.id !== deploy.id);
  return [...others, deploy].sort((a, b) => b.id - a.id).slice(0, Math.max(20, deploys.length));
}

/**
 * Where "terug naar deze versie" makes sense: an earlier deploy that succeeded with a commit
 * other than the one the site shows now, while nothing is queued or running.
 */
export function canRollBackTo(deploy: ProjectDeploy, current: ProjectDeploy | null, busy: boolean): boolean {
  if (busy || deploy.status !== 'deployed' || deploy.commit === null) return false;
  if (current === null) return true;
  return deploy.id !== current.id && deploy.commit.hash !== current.commit?.hash;
}

const relativeUnits: Array<[seconds: number, one: string, many: string]> = [
  [365 * 86_400, 'jaar', 'jaar'],
  [30 * 86_400, 'maand', 'maanden'],
  [7 * 86_400, 'week', 'weken'],
  [86_400, 'dag', 'dagen'],
  [3_600, 'uur', 'uur'],
  [60, 'minuut', 'minuten'],
];

/** '3 minuten geleden', '1 uur geleden', 'zojuist' (under a minute, or a clock a little ahead). */
export function relativeDutchTime(iso: string, now: Date = new Date()): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return '';
  const seconds = Math.floor((now.getTime() - time) / 1000);
  for (const [size, one, many] of relativeUnits) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${count === 1 ? one : many} geleden`;
  }
  return 'zojuist';
}

/** 'Bijgewerkt, na een push' — the status label with what started it. */
export function deployHeadline(deploy: Pick<ProjectDeploy, 'status' | 'trigger'>): string {
  return `${DEPLOY_STATUS_LABELS[deploy.status]}, ${DEPLOY_TRIGGER_LABELS[deploy.trigger]}`;
}

/** Most log lines a card keeps (the server's detail has the whole log). */
export const DEPLOY_LOG_MAX_LINES = 500;

/** Appends live lines, keeping the last DEPLOY_LOG_MAX_LINES. */
export function appendLogLines(lines: readonly DeployLogLine[], more: readonly DeployLogLine[]): DeployLogLine[] {
  const all = [...lines, ...more];
  return all.length > DEPLOY_LOG_MAX_LINES ? all.slice(all.length - DEPLOY_LOG_MAX_LINES) : all;
}
