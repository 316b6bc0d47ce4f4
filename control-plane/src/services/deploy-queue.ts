import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { checkRepositoryAddress } from '@devplein/contract/validation/repositoryAddress';
import { containerChannelName } from '@devplein/contract/realtime';
import { DEPLOY_LOG_EVENT, DEPLOY_UPDATED_EVENT, type DeployFailure, type DeployLogEvent, type DeployTrigger, type DeployUpdatedEvent } from '@devplein/contract/deploys';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { DeployInput, DeployStreamEvent } from '../agent/deploy-views.ts';
import type { Config } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { AGENT_UNREACHABLE_MESSAGE } from '../agent/agent-failure.ts';
import { DeployLog } from '../lib/deploy-log.ts';
import { gitPolicyOf } from '../lib/git-policy.ts';
import { credentialFits } from '../lib/git-credential.ts';
import { createTriggerQueue, type RealtimeTrigger, type TriggerQueue } from '../realtime/trigger-queue.ts';
import { queueDeploy, type DeployRequest, type QueueDecision } from '../commands/queue-deploy.ts';
import { type DeployRowWithLog, loadDeploy, loadDeploySettings, loadProjectDeploy, type DeploySettingsRow } from '../queries/deploys.ts';
import { presentDeploy } from '../presenters/present-deploy.ts';

/** A queue decision; a queued one with the deploy's row as accepted (undefined only if it vanished at once). */
export type AcceptedDecision = Exclude<QueueDecision, { queued: true }> | (Extract<QueueDecision, { queued: true }> & { accepted: DeployRowWithLog | undefined });

export const OLD_AGENT_MESSAGE = 'Deze dockerserver kan nog geen git-deploy.';
export const INTERRUPTED_MESSAGE = 'De update werd onderbroken doordat devplein opnieuw startte. De vorige versie van de site is mogelijk nog online: probeer Bijwerken opnieuw.';
const NO_CONTAINER_MESSAGE = 'Dit project heeft nog geen container. Maak hem eerst aan.';
const NOT_RUNNING_MESSAGE = 'De container draait niet. Start hem en probeer het opnieuw.';
const NO_OUTCOME_MESSAGE = 'De dockerserver stopte de update zonder uitslag. De vorige versie van de site staat er nog.';
const AGENT_FAILED_MESSAGE = 'De dockerserver kon de update niet uitvoeren. De vorige versie van de site staat er nog.';
const NOT_DEPLOYABLE_MESSAGE = 'Dit project kan niet meer worden bijgewerkt: het is niet goedgekeurd, of het heeft geen repository of webmap meer.';
export const TOKEN_MISSING_MESSAGE = 'Er is geen token opgeslagen voor deze repository (het adres veranderde, of wie het invulde zit niet meer in het project). Vul het token opnieuw in bij Git-deploy → Instellingen.';
export const TOKEN_OTHER_ADDRESS_MESSAGE = 'Het opgeslagen token hoort bij een ander repository-adres en is niet meegestuurd. Vul het token opnieuw in bij Git-deploy → Instellingen.';
const RESTARTED_MESSAGE = 'De container is herstart omdat de server nog de oude bestanden gebruikte.';

/** The log's first line: why this deploy runs. */
const START_LINES: Record<DeployTrigger, string> = {
  create: 'Eerste deploy na het aanmaken van de container.',
  button: 'Bijwerken gevraagd.',
  webhook: 'Nieuwe push ontvangen.',
  rollback: 'Terug naar een eerdere versie.',
};

/** How often the log lines of a running deploy go out (realtime) and into its row. */
export const DEPLOY_LOG_FLUSH_MS = 250;

export interface DeployQueueDeps {
  knex: Knex;
  agents: AgentFleet;
  realtime: RealtimeTrigger;
  logger: Logger;
  config: Pick<Config, 'GIT_ALLOWED_HOSTS' | 'GIT_ALLOW_HTTP'>;
  /** The app's secret box (the sealed HTTPS tokens). */
  secrets: SecretBox;
}

/** The end of one deploy as its row records it. */
interface Outcome {
  status: 'deployed' | 'failed';
  failure: DeployFailure | null;
  message: string | null;
  commit: { hash: string; subject: string; author: string; time: Date | null } | null;
}

/**
 * The deploy queue of this control-plane process (one process: its rate limits and this queue
 * are in memory). The rows are the truth: a request is recorded 'queued' (commands/queue-deploy),
 * then this runs each project's newest queued row, one deploy per project at a time, outside
 * any transaction: claim it ('running'), stream the agent's DeployRepository, relay the log
 * lines on the container's channel every DEPLOY_LOG_FLUSH_MS (DEPLOY_LOG_EVENT) and into the
 * row (capped), and record the end ('deployed' or 'failed'); every status change goes out as
 * DEPLOY_UPDATED_EVENT.
 *
 * At start-up (recover) rows a previous process left 'running' are failed as 'interrupted' (the
 * agent's call died with that process; whether the swap happened is unknown, so it says so),
 * and 'queued' ones are run: they never started, and the push or click that asked for them
 * would not come again.
 */
export class DeployQueue {
  private readonly knex: Knex;
  private readonly logger: Logger;
  private readonly secrets: SecretBox;
  private readonly realtime: TriggerQueue;
  /** Projects whose deploys run now; `again`: a request came while the last claim found none. */
  private readonly draining = new Map<number, { again: boolean; done: Promise<void> }>();
  /** Deploys this process claimed: recover() leaves them alone. */
  private readonly claimed = new Set<number>();
  private readonly running = new Map<number, AbortController>();
  private stopped = false;

  constructor(private readonly deps: DeployQueueDeps) {
    this.knex = deps.knex;
    this.logger = deps.logger;
    this.secrets = deps.secrets;
    this.realtime = createTriggerQueue(deps.realtime);
  }

  /**
   * Records the request (see queueDeploy), announces it and the deploys it superseded, and starts
   * the project's queue. A queued decision carries the deploy as accepted (read before the queue
   * may start it), so a 202 always shows what was accepted.
   */
  async request(request: DeployRequest, options: { skipSameCommit?: boolean; projectName: string }): Promise<AcceptedDecision> {
    const decision = await queueDeploy(this.knex, request, options);
    if (!decision.queued) return decision;
    for (const id of [...decision.superseded, decision.deployId]) await this.announce(id, options.projectName);
    const accepted = await loadProjectDeploy(this.knex, request.projectId, decision.deployId);
    this.kick(request.projectId);
    return { ...decision, accepted };
  }

  /** Runs the project's queued deploys unless they run already. */
  kick(projectId: number): void {
    if (this.stopped) return;
    const state = this.draining.get(projectId);
    if (state) {
      state.again = true;
      return;
    }
    const fresh = { again: false, done: Promise.resolve() };
    this.draining.set(projectId, fresh);
    fresh.done = this.drain(projectId, fresh);
  }

  /** Fails the running rows of a dead process and runs its queued ones (see the class). */
  async recover(): Promise<void> {
    const running = await this.knex('project_deploys as d')
      .join('projects as p', 'p.id', 'd.project_id')
      .where('d.status', 'running')
      .select<{ id: number; name: string }[]>('d.id', 'p.name');
    for (const row of running) {
      const id = Number(row.id);
      if (this.claimed.has(id)) continue;
      const changed = await this.knex('project_deploys')
        .where({ id, status: 'running' })
        .update({ status: 'failed', failure: 'interrupted', message: INTERRUPTED_MESSAGE, finished_at: this.knex.fn.now() });
      if (changed > 0) {
        this.logger.warn({ deployId: id }, 'deploy interrupted by a restart');
        await this.announce(id, row.name);
      }
    }
    const queued = await this.knex('project_deploys').where('status', 'queued').distinct<{ project_id: number }[]>('project_id');
    for (const row of queued) this.kick(Number(row.project_id));
  }

  /**
   * Stops every running deploy (shutdown): the agent cancels it before the swap and its row
   * records 'interrupted'; resolves once those rows are written. Queued rows stay queued for
   * the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const controller of this.running.values()) controller.abort();
    await Promise.all([...this.draining.values()].map((state) => state.done));
  }

  /** Whether a deploy runs or waits in this process. */
  get busy(): boolean {
    return this.draining.size > 0;
  }

  private async drain(projectId: number, state: { again: boolean }): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) break;
        state.again = false;
        const claimed = await this.claim(projectId);
        if (claimed !== null) {
          await this.run(claimed);
          continue;
        }
        if (!state.again) break;
      }
    } catch (error) {
      this.logger.error({ err: error, projectId }, 'deploy queue failed');
    } finally {
      this.draining.delete(projectId);
    }
  }

  /** The project's newest queued deploy, now 'running' (null: none waits). */
  private async claim(projectId: number): Promise<number | null> {
    const rows = await this.knex('project_deploys')
      .where('id', this.knex('project_deploys').where({ project_id: projectId, status: 'queued' }).orderBy('id', 'desc').limit(1).select('id'))
      .andWhere('status', 'queued')
      .update({ status: 'running', started_at: this.knex.fn.now() })
      .returning<{ id: number }[]>('id');
    const id = rows[0] ? Number(rows[0].id) : null;
    if (id !== null) this.claimed.add(id);
    return id;
  }

  private async run(deployId: number): Promise<void> {
    const deploy = await loadDeploy(this.knex, deployId);
    if (!deploy) return;
    const project = await loadDeploySettings(this.knex, deploy.project_id);
    if (!project) return;
    await this.announce(deployId, project.name);
    const log = new DeployLog();
    log.add({ phase: 'queue', text: `${START_LINES[deploy.trigger]}${deploy.branch ? ` Branch: ${deploy.branch}.` : ''}`, percent: null });
    const controller = new AbortController();
    this.running.set(deployId, controller);
    const flush = async (): Promise<void> => {
      if (!log.hasFresh) return;
      const lines = log.take();
      await this.knex('project_deploys').where('id', deployId).update({ log: JSON.stringify(log.lines()) });
      const event: DeployLogEvent = { deployId, lines };
      // In order through the trigger queue; the deploy does not wait for the realtime server.
      this.realtime.trigger(containerChannelName(project.name), DEPLOY_LOG_EVENT, event).catch((error: unknown) => this.logger.warn({ err: error, deployId }, 'deploy log not sent'));
    };
    let flushing: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing.then(flush).catch((error: unknown) => this.logger.warn({ err: error, deployId }, 'deploy log not stored'));
    }, DEPLOY_LOG_FLUSH_MS);
    let outcome: Outcome;
    try {
      outcome = await this.stream(deployId, deploy, project, log, controller.signal);
    } finally {
      clearInterval(timer);
      this.running.delete(deployId);
    }
    if (outcome.message) log.add({ phase: outcome.status === 'deployed' ? 'swap' : 'queue', text: outcome.message, percent: null });
    await flushing;
    await flush();
    const commit = outcome.commit;
    await this.knex('project_deploys')
      .where('id', deployId)
      .update({
        status: outcome.status,
        failure: outcome.failure,
        message: outcome.message === null ? null : storable(outcome.message, 2_000),
        finished_at: this.knex.fn.now(),
        log: JSON.stringify(log.lines()),
        ...(commit ? { commit_hash: commit.hash, commit_subject: storable(commit.subject, 500), commit_author: storable(commit.author, 200), committed_at: commit.time } : {}),
      });
    this.logger.info({ deployId, projectId: project.id, status: outcome.status, failure: outcome.failure }, 'deploy finished');
    await this.announce(deployId, project.name);
  }

  /** Asks the agent and reads the stream to its end; never throws. */
  private async stream(deployId: number, deploy: { branch: string | null; trigger: string; commit_hash: string | null }, project: DeploySettingsRow, log: DeployLog, signal: AbortSignal): Promise<Outcome> {
    const input = this.deployInput(deployId, deploy, project);
    if (input === null) return { status: 'failed', failure: null, message: NOT_DEPLOYABLE_MESSAGE, commit: null };
    if ('refused' in input) return { status: 'failed', failure: 'auth-failed', message: input.refused, commit: null };
    let finished: Extract<DeployStreamEvent, { kind: 'finished' }> | null = null;
    try {
      for await (const event of this.deps.agents.forHost(project.host).deploys.deployRepository(input, { signal })) {
        if (event.kind === 'progress') log.add({ phase: event.phase, text: event.text, percent: event.percent });
        else finished = event;
      }
    } catch (error) {
      this.logger.warn({ err: error, deployId, projectId: project.id }, 'deploy call failed');
      return { status: 'failed', ...agentFailureOf(error), commit: null };
    }
    if (signal.aborted) return { status: 'failed', failure: 'interrupted', message: INTERRUPTED_MESSAGE, commit: null };
    if (!finished) return { status: 'failed', failure: 'agent-unavailable', message: NO_OUTCOME_MESSAGE, commit: null };
    const commit = finished.commit;
    return {
      status: finished.failure === null ? 'deployed' : 'failed',
      failure: finished.failure,
      message: finished.failure === null ? (finished.restarted ? RESTARTED_MESSAGE : finished.message || null) : finished.message || AGENT_FAILED_MESSAGE,
      commit,
    };
  }

  /**
   * The agent's request for a row; null when the project can no longer deploy; `refused` when it
   * signs in with a token but none is stored for its repository's address (issue 35: a token goes
   * only to the address it was entered for).
   */
  private deployInput(deployId: number, deploy: { branch: string | null; trigger: string; commit_hash: string | null }, project: DeploySettingsRow): DeployInput | { refused: string } | null {
    if (project.validated !== true || !project.repro || !project.deploy_web_root) return null;
    const policy = gitPolicyOf(this.deps.config);
    const address = checkRepositoryAddress(project.repro, policy);
    if (!address.ok) return null;
    let token: string | null = null;
    if (project.deploy_auth === 'token') {
      if (project.git_token_sealed === null || project.git_token_address === null) return { refused: TOKEN_MISSING_MESSAGE };
      if (!credentialFits(project.git_token_address, project.repro)) {
        this.logger.warn({ deployId, projectId: project.id }, 'stored git token belongs to another address: not sent');
        return { refused: TOKEN_OTHER_ADDRESS_MESSAGE };
      }
      token = this.secrets.open(project.git_token_sealed);
    }
    return {
      projectId: project.id,
      deployId,
      address: project.repro,
      branch: deploy.branch,
      // Only a roll back pins its commit; a push's is what it expects, the branch's newest is deployed.
      commit: deploy.trigger === 'rollback' ? deploy.commit_hash : null,
      target: {
        webRoot: project.deploy_web_root,
        afterUpdate: project.deploy_after_update,
        keepPaths: project.deploy_keep_paths ?? [],
        buildCommand: project.deploy_build_command,
        buildOutput: project.deploy_build_output,
      },
      allowedHosts: policy.allowedHosts,
      allowHttp: policy.allowHttp,
      credentials: project.deploy_auth === 'deploy-key' ? { kind: 'deploy-key' } : token ? { kind: 'token', token } : { kind: 'none' },
    };
  }

  /**
   * DEPLOY_UPDATED_EVENT with the row as it is now; never throws. Resolves once the event is in
   * the trigger queue (events go out in that order), not when the realtime server answered.
   */
  private async announce(deployId: number, projectName: string): Promise<void> {
    const failed = (error: unknown) => this.logger.warn({ err: error, deployId }, 'deploy update not sent');
    try {
      const row = await loadDeploy(this.knex, deployId);
      if (!row) return;
      const event: DeployUpdatedEvent = { deploy: presentDeploy(row) };
      this.realtime.trigger(containerChannelName(projectName), DEPLOY_UPDATED_EVENT, event).catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}

/** Text the row can hold: without U+0000, at most `max` characters. */
const storable = (value: string, max: number): string => value.replaceAll('\u0000', '').slice(0, max);

/** A failed DeployRepository call as the row records it (Dutch for the student). */
export function agentFailureOf(error: unknown): { failure: DeployFailure; message: string } {
  if (!(error instanceof AgentError)) return { failure: 'agent-unavailable', message: AGENT_FAILED_MESSAGE };
  if (error.code === 'UNIMPLEMENTED') return { failure: 'agent-unavailable', message: OLD_AGENT_MESSAGE };
  if (error.unreachable) return { failure: 'agent-unavailable', message: AGENT_UNREACHABLE_MESSAGE };
  if (error.code === 'NOT_FOUND') return { failure: 'no-container', message: NO_CONTAINER_MESSAGE };
  if (error.code === 'FAILED_PRECONDITION') return { failure: 'no-container', message: NOT_RUNNING_MESSAGE };
  if (error.code === 'INVALID_ARGUMENT') return { failure: 'fetch-failed', message: `De dockerserver weigerde deze update: ${error.details}` };
  return { failure: 'agent-unavailable', message: AGENT_FAILED_MESSAGE };
}
