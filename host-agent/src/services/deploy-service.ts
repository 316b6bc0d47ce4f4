import { readFileSync } from 'node:fs';
import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { BRANCH_MESSAGE, checkRepositoryAddress, isSafeBranchName, type RepositoryAddress } from '@devplein/contract/validation/repositoryAddress';
import {
  DeployOutcome,
  DeployPhase,
  type DeployRepositoryRequest,
  type DeployRepositoryResponse,
  DeployServiceService,
  type DeployServiceServer,
  type GetDeployKeyResponse,
} from '@devplein/proto/deploy';
import type { AgentConfig } from '../config.ts';
import { lookUpUser } from '../drivers/browser/browser-server-process.ts';
import { ContainerDeployer, DeployError, type DeploySettings } from '../drivers/deploy/container-deployer.ts';
import { checkKeepPath, checkWebRoot } from '../drivers/deploy/tree-archive.ts';
import type { DockerDriver } from '../drivers/docker/docker-driver.ts';
import type { DockerEngine } from '../drivers/docker/engine.ts';
import { DeployKeyStore } from '../drivers/git/deploy-key-store.ts';
import { GitFirewall, gitPort } from '../drivers/git/git-firewall.ts';
import type { GitProgressEvent } from '../drivers/git/git-progress.ts';
import { GitRunnerClient } from '../drivers/git/git-runner-client.ts';
import { runnerCheckoutDir } from '../drivers/git/git-runner-protocol.ts';
import { type FetchedCommit, type FetchResult, type GitCredentials, GitFetchError, RepositoryFetcher } from '../drivers/git/repository-fetcher.ts';
import { dockerFailure } from './docker-status.ts';
import { type DeployRevokedError, type ProjectTurns, revoked } from '../projects/project-turns.ts';
import { deployStepLine, deployStoppedMessage, failureOutcome, gitProgressLine, ProgressThrottle } from './deploy-lines.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

/** The caller's mistake or the project's state, with the gRPC code it maps to (Dutch: the control plane may show it). */
export class DeployRequestError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
    this.name = 'DeployRequestError';
  }
}

const invalid = (message: string) => new DeployRequestError(grpc.status.INVALID_ARGUMENT, message);

function deployFailure(error: unknown): FailureStatus | undefined {
  if (error instanceof DeployRequestError) return { code: error.code, details: error.message };
  if (error instanceof GitFetchError && ['address-refused', 'bad-branch', 'bad-commit', 'bad-credentials'].includes(error.reason)) {
    return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  }
  if (error instanceof DeployError && error.reason === 'bad-settings') return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  if (error instanceof DeployError && error.reason === 'not-deployable') return { code: grpc.status.FAILED_PRECONDITION, details: error.message };
  return dockerFailure(error);
}

/** A request checked: what the fetcher and the deployer get. */
export interface CheckedDeploy {
  projectId: number;
  address: RepositoryAddress;
  allowedHosts: string[];
  allowHttp: boolean;
  branch: string | undefined;
  commit: string | undefined;
  settings: DeploySettings;
  credentials: { kind: 'anonymous' } | { kind: 'deploy-key' } | { kind: 'token'; token: string };
}

export function checkProjectId(value: number): number {
  const projectId = Number(value);
  if (!Number.isSafeInteger(projectId) || projectId <= 0) throw invalid('project_id moet een positief getal zijn.');
  return projectId;
}

/**
 * Checks a DeployRepository request (INVALID_ARGUMENT with a Dutch message): the address against
 * the request's allowed hosts and, when the agent has its own list (AGENT_GIT_HOSTS), that one
 * too; the branch, the commit, the web root, keep paths, commands and credentials.
 */
export function checkDeployRequest(request: DeployRepositoryRequest, agentHosts: readonly string[]): CheckedDeploy {
  const projectId = checkProjectId(request.projectId);
  const allowHttp = request.allowHttp;
  const requested = request.allowedHosts.map((host) => host.trim().toLowerCase()).filter(Boolean);
  const check = checkRepositoryAddress(request.address, { allowedHosts: requested, allowHttp });
  if (!check.ok) throw invalid(check.message);
  // Entries are `host` (its transport's standard port) or `host:port` (that port): the agent's own
  // list narrows the request's entry by entry, and the address (its port too) must pass both.
  const allowedHosts = agentHosts.length > 0 ? requested.filter((host) => agentHosts.includes(host)) : requested;
  if (!checkRepositoryAddress(request.address, { allowedHosts, allowHttp }).ok) {
    const where = check.address.port !== undefined ? `${check.address.host}:${check.address.port}` : check.address.host;
    throw invalid(`De Git-server ${where} is niet toegestaan op deze ontwikkelserver. Toegestaan: ${agentHosts.join(', ')}.`);
  }
  const branch = request.branch.trim() === '' ? undefined : request.branch.trim();
  if (branch !== undefined && !isSafeBranchName(branch)) throw invalid(BRANCH_MESSAGE);
  const commit = request.commit.trim() === '' ? undefined : request.commit.trim().toLowerCase();
  if (commit !== undefined && !/^[0-9a-f]{40}$/.test(commit)) throw invalid('Een commit is een volledige hash van 40 tekens (0-9 en a-f).');
  const target = request.target;
  if (!target) throw invalid('De deploy mist zijn doel (de webmap in de container).');
  let settings: DeploySettings;
  try {
    settings = {
      webRoot: checkWebRoot(target.webRoot),
      keepPaths: target.keepPaths.map(checkKeepPath),
      afterUpdate: target.afterUpdate.trim() || null,
      buildCommand: target.buildCommand.trim() || null,
      buildOutput: target.buildOutput.trim() ? checkKeepPath(target.buildOutput.trim()) : null,
    };
  } catch (error) {
    if (error instanceof DeployError) {
      if (/^web root/.test(error.message)) throw invalid(`De webmap "${target.webRoot}" is geen absoluut pad in de container (bijvoorbeeld /www).`);
      throw invalid(`Een pad om te bewaren of de uitvoermap is geen pad binnen de webmap: ${error.message.replace(/^keep path /, '')}.`);
    }
    throw error;
  }
  if (/[\r\n\0]/.test(settings.afterUpdate ?? '') || /[\r\n\0]/.test(settings.buildCommand ?? '')) throw invalid('Een opdracht moet op één regel staan.');
  if ((settings.buildCommand === null) !== (settings.buildOutput === null)) throw invalid('Een bouwstap heeft zowel een opdracht als een uitvoermap nodig.');
  let credentials: CheckedDeploy['credentials'] = { kind: 'anonymous' };
  const given = request.credentials;
  if (given?.$case === 'useDeployKey' && given.value) {
    if (check.address.protocol !== 'ssh') throw invalid('Een deploy key werkt alleen met een SSH-adres (ssh://… of git@server:pad).');
    credentials = { kind: 'deploy-key' };
  } else if (given?.$case === 'httpsToken') {
    const token = given.value.trim();
    if (token === '' || /[\s\0]/.test(token) || token.length > 1000) throw invalid('Het token is leeg of bevat spaties.');
    if (check.address.protocol !== 'https' && check.address.protocol !== 'http') throw invalid('Een token werkt alleen met een https://-adres.');
    credentials = { kind: 'token', token };
  }
  return { projectId, address: check.address, allowedHosts, allowHttp, branch, commit, settings, credentials };
}

export interface DeployServiceOptions {
  /** The project containers of this agent (found by their project label, on this agent's network). */
  containers: Pick<DockerDriver, 'find'>;
  docker: DockerEngine;
  config: Pick<AgentConfig, 'dataDir' | 'deploy'> & { vpn: Pick<AgentConfig['vpn'], 'iptablesBinary'> };
  logger: Logger;
  /** Name in the deploy keys' comment (default: this host's name). */
  hostname?: string;
  /** The agent's one owner of each project's turn (shared with the container and SSH services). */
  turns: ProjectTurns;
}

type Send = (event: DeployRepositoryResponse['event']) => void;

/**
 * DeployService (contract 1.7.0, deploy.proto): a project's repository into its container. git
 * runs, in order of preference:
 * - in the git runner of its own unit (AGENT_GIT_RUNNER, production: devplein-git.service), as the
 *   git user, with the checkouts in the runner's state folder, which the agent reads;
 * - from the agent as AGENT_GIT_USER when the agent is root (tests, `npm start`);
 * - else as the agent itself (a warning at start-up).
 * The git user's traffic is kept to the git host of each fetch by git-firewall.ts (the agent sets
 * the iptables owner rule: root, or CAP_NET_ADMIN in production). Deploy keys live in
 * AGENT_DATA_DIR/deploy (see deploy-key-store.ts for the sealing); the runner gets a key's plain
 * text for one fetch only.
 */
export class DeployServiceImpl {
  private readonly keys: DeployKeyStore;
  private readonly deployer: ContainerDeployer;
  private readonly runAs: { uid: number; gid: number } | undefined;
  private readonly runner: GitRunnerClient | undefined;
  private readonly firewall: GitFirewall | undefined;
  private prepared: Promise<void> | undefined;

  constructor(private readonly options: DeployServiceOptions) {
    const { config, logger } = options;
    const host = (options.hostname ?? os.hostname()).replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 60) || 'agent';
    this.keys = new DeployKeyStore({ dir: this.baseDir, comment: (projectId) => `devplein-project-${projectId}@${host}` });
    this.deployer = new ContainerDeployer({
      docker: options.docker,
      maxBytes: config.deploy.maxBytes,
      afterUpdateTimeoutMs: config.deploy.commandTimeoutMs,
      buildTimeoutMs: config.deploy.commandTimeoutMs,
      onCleanupFailed: (error) => logger.warn({ err: error }, 'git deploys: the previous tree stays in the container until its next deploy'),
    });
    const isRoot = process.getuid?.() === 0;
    const { runner: runnerSettings } = config.deploy;
    if (runnerSettings) {
      // Read once at start-up, like the browser server's secret: a missing file stops the agent with its reason.
      this.runner = new GitRunnerClient({ baseUrl: runnerSettings.url, secret: readFileSync(runnerSettings.secretFile, 'utf8').trim() });
      const user = lookUpUser(config.deploy.gitUser);
      if (user && config.deploy.firewall === 'iptables') this.firewall = new GitFirewall({ iptablesBinary: config.vpn.iptablesBinary, uid: user.uid });
      if (!user) logger.warn({ user: config.deploy.gitUser }, 'git deploys: the git runner’s user does not exist here, so its traffic is not fenced (AGENT_GIT_USER)');
      logger.info({ runner: runnerSettings.url, user: config.deploy.gitUser, firewall: this.firewall ? 'iptables' : 'off' }, 'git deploys: git runs in the git runner');
      return;
    }
    const user = isRoot ? lookUpUser(config.deploy.gitUser) : undefined;
    if (user) {
      this.runAs = { uid: user.uid, gid: user.gid };
      if (config.deploy.firewall === 'iptables') this.firewall = new GitFirewall({ iptablesBinary: config.vpn.iptablesBinary, uid: user.uid });
      logger.info({ user: config.deploy.gitUser, firewall: config.deploy.firewall }, 'git deploys: git runs as its own user');
    } else {
      logger.warn(
        { why: isRoot ? `there is no user ${config.deploy.gitUser} (useradd --system --shell /usr/sbin/nologin ${config.deploy.gitUser})` : 'the agent is not root and AGENT_GIT_RUNNER is not set' },
        'git deploys: git runs as the agent’s own user, without the git firewall (see docs/operations.md, "Git deploys on the dev server")',
      );
    }
  }

  /** AGENT_DATA_DIR/deploy: seal key, sealed keys, checkouts, git's own state. */
  get baseDir(): string {
    return join(this.options.config.dataDir, 'deploy');
  }

  checkoutDir(projectId: number): string {
    const runner = this.options.config.deploy.runner;
    return runner ? runnerCheckoutDir(runner.stateDir, projectId) : join(this.baseDir, 'checkouts', String(projectId));
  }

  /** The folders, made once; the git user may pass through the agent's folders (never list or read them). */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      const { dataDir } = this.options.config;
      await mkdir(dataDir, { recursive: true, mode: 0o711 });
      await mkdir(this.baseDir, { recursive: true, mode: 0o711 });
      await chmod(this.baseDir, 0o711);
      if (this.runAs) {
        const mode = (await stat(dataDir)).mode & 0o7777;
        if ((mode & 0o001) === 0) {
          await chmod(dataDir, mode | 0o001);
          this.options.logger.info({ dataDir, mode: (mode | 0o001).toString(8) }, 'git deploys: the git user may now pass through the data folder (o+x, no listing)');
        }
      }
    })();
    this.prepared.catch(() => (this.prepared = undefined));
    return this.prepared;
  }

  /** Removes a project's checkout (its container is gone); its deploy key stays (registered at the git server). */
  async removeCheckout(projectId: number): Promise<void> {
    if (this.runner) await this.runner.removeCheckout(projectId);
    else await rm(this.checkoutDir(projectId), { recursive: true, force: true });
  }

  /** The project's public key, made on first ask; with `existingOnly` (contract 1.8.0) none is made: an empty answer for a project without one. */
  async getDeployKey(projectIdInput: number, existingOnly = false): Promise<GetDeployKeyResponse> {
    const projectId = checkProjectId(projectIdInput);
    await this.prepare();
    if (existingOnly) return (await this.keys.existingPublicKey(projectId)) ?? { publicKey: '', fingerprint: '' };
    return this.keys.publicKey(projectId);
  }

  /** One deploy, streamed through `send`; RPC errors are thrown before the first message. */
  async deploy(request: DeployRepositoryRequest, send: Send, signal: AbortSignal, log: Logger): Promise<void> {
    const checked = checkDeployRequest(request, this.options.config.deploy.gitHosts);
    // In the project's turn: one deploy of a project at a time, none during a create, act or
    // removal; a start, stop, pause or removal that comes while it runs stops it (project-turns.ts).
    await this.options.turns.deploy(checked.projectId, async (revokedSignal) => {
      if (signal.aborted) return;
      const deploySignal = AbortSignal.any([signal, revokedSignal]);
      const container = await this.options.containers.find({ projectId: checked.projectId });
      if (!container) throw new DeployRequestError(grpc.status.NOT_FOUND, `Project ${checked.projectId} heeft geen container op deze ontwikkelserver.`);
      if (container.state !== 'running') {
        throw new DeployRequestError(grpc.status.FAILED_PRECONDITION, `De container van project ${checked.projectId} draait niet (${container.state || 'onbekend'}); start hem eerst.`);
      }
      await this.prepare();
      await this.run(checked, container.id, send, deploySignal, log.child({ projectId: checked.projectId, deployId: request.deployId || undefined }));
    });
  }

  private async run(checked: CheckedDeploy, containerId: string, send: Send, signal: AbortSignal, log: Logger): Promise<void> {
    const started = performance.now();
    const { config } = this.options;
    const progress = (phase: DeployPhase, line: string, percent = -1) => send({ $case: 'progress', value: { phase, line, percent } });
    const finish = (outcome: DeployOutcome, message: string, commit: FetchedCommit | undefined, extra: { files?: number; bytes?: number; restarted?: boolean } = {}) => {
      send({
        $case: 'finished',
        value: {
          outcome,
          message,
          commit: commit && { hash: commit.hash, subject: commit.subject, author: commit.author, authorEmail: commit.authorEmail, time: commit.time ? new Date(commit.time) : undefined },
          files: extra.files ?? 0,
          bytes: extra.bytes ?? 0,
          durationMs: Math.round(performance.now() - started),
          restarted: extra.restarted ?? false,
        },
      });
    };
    const throttle = new ProgressThrottle(200);
    const what = checked.commit ? `commit ${checked.commit.slice(0, 8)}` : checked.branch ? `branch ${checked.branch}` : 'de standaardbranch';
    progress(DeployPhase.DEPLOY_PHASE_FETCH, `Ophalen van ${checked.address.url} (${what})`);
    let commit: FetchedCommit | undefined;
    try {
      const fetched = await this.fetch(checked, signal, (event) => {
        const line = gitProgressLine(event);
        if (throttle.take(`${event.remote}:${event.phase}`, event.done)) send({ $case: 'progress', value: line });
      });
      if (!fetched) {
        finish(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED, 'Dit project heeft nog geen deploy key: vraag hem op, voeg hem toe aan de Git-server en probeer het opnieuw.', undefined);
        return;
      }
      commit = fetched.commit;
      progress(DeployPhase.DEPLOY_PHASE_FETCH, `Commit ${commit.hash.slice(0, 8)}: ${commit.subject}`, 100);
      const result = await this.deployer.deploy({
        containerId,
        checkoutDir: this.checkoutDir(checked.projectId),
        settings: checked.settings,
        signal,
        onProgress: (event) => {
          const line = deployStepLine(event);
          if (line) send({ $case: 'progress', value: line });
        },
      });
      finish(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, `De site is bijgewerkt naar commit ${commit.hash.slice(0, 8)}.`, commit, result);
      log.info({ commit: commit.hash, files: result.files, bytes: result.bytes, restarted: result.restarted, ms: Math.round(performance.now() - started) }, 'deployed a repository');
    } catch (error) {
      if (revoked(signal)) {
        const by = (signal.reason as DeployRevokedError).by;
        log.info({ commit: commit?.hash, by }, 'a deploy was stopped by a change of its container; the old site stays');
        finish(DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED, deployStoppedMessage(by), commit);
        return;
      }
      if (signal.aborted) {
        log.info({ commit: commit?.hash }, 'a deploy was cancelled by the caller; the old site stays');
        return;
      }
      const failure = failureOutcome(error, { maxBytes: config.deploy.maxBytes, commandTimeoutMs: config.deploy.commandTimeoutMs });
      if (!failure) throw error;
      if (error instanceof GitFetchError) for (const line of error.gitMessages.slice(-5)) progress(DeployPhase.DEPLOY_PHASE_FETCH, line);
      log.info({ outcome: DeployOutcome[failure.outcome], reason: (error as Error).message, commit: commit?.hash }, 'a deploy failed; the old site stays');
      finish(failure.outcome, failure.message, commit);
    }
  }

  /** Fetches into the project's checkout with the request's credentials; undefined when a deploy key is wanted and there is none. */
  private async fetch(checked: CheckedDeploy, signal: AbortSignal, onProgress: (event: GitProgressEvent) => void): Promise<FetchResult | undefined> {
    if (this.runner) return this.fetchInRunner(this.runner, checked, signal, onProgress);
    const { config } = this.options;
    const fetcher = new RepositoryFetcher({
      policy: { allowedHosts: checked.allowedHosts, allowHttp: checked.allowHttp },
      stateDir: join(this.baseDir, 'git'),
      timeoutMs: config.deploy.fetchTimeoutMs,
      maxBytes: config.deploy.maxBytes,
      ...(this.runAs ? { runAs: this.runAs } : {}),
      ...(this.firewall ? { openWay: async (address: RepositoryAddress) => (await this.openWay(address)) ?? (async () => undefined) } : {}),
    });
    const base = {
      address: checked.address.url,
      checkoutDir: this.checkoutDir(checked.projectId),
      ...(checked.branch !== undefined ? { branch: checked.branch } : {}),
      ...(checked.commit !== undefined ? { commit: checked.commit } : {}),
      onProgress,
      signal,
    };
    if (checked.credentials.kind === 'deploy-key') {
      return this.keys.withPrivateKey(checked.projectId, join(this.baseDir, 'run'), this.runAs, (privateKeyPath) =>
        fetcher.fetch({ ...base, credentials: { kind: 'deploy-key', privateKeyPath } }),
      );
    }
    const credentials: GitCredentials = checked.credentials.kind === 'token' ? { kind: 'token', token: checked.credentials.token } : { kind: 'anonymous' };
    return fetcher.fetch({ ...base, credentials });
  }

  /** The fetch done by the git runner, with the firewall's way open to the git host meanwhile. */
  private async fetchInRunner(runner: GitRunnerClient, checked: CheckedDeploy, signal: AbortSignal, onProgress: (event: GitProgressEvent) => void): Promise<FetchResult | undefined> {
    const { config } = this.options;
    const job = {
      projectId: checked.projectId,
      address: checked.address.url,
      ...(checked.branch !== undefined ? { branch: checked.branch } : {}),
      ...(checked.commit !== undefined ? { commit: checked.commit } : {}),
      policy: { allowedHosts: checked.allowedHosts, allowHttp: checked.allowHttp },
      timeoutMs: config.deploy.fetchTimeoutMs,
      maxBytes: config.deploy.maxBytes,
    };
    const close = await this.openWay(checked.address);
    try {
      if (checked.credentials.kind === 'deploy-key') {
        return await this.keys.withPrivateKeyText(checked.projectId, (privateKey) => runner.fetch({ ...job, credentials: { kind: 'deploy-key', privateKey } }, onProgress, signal));
      }
      const credentials = checked.credentials.kind === 'token' ? { kind: 'token' as const, token: checked.credentials.token } : { kind: 'anonymous' as const };
      return await runner.fetch({ ...job, credentials }, onProgress, signal);
    } finally {
      await close?.();
    }
  }

  /** Opens the git user's firewall to this address's host and port for one fetch; undefined without a firewall. */
  private async openWay(address: RepositoryAddress): Promise<(() => Promise<void>) | undefined> {
    if (!this.firewall) return undefined;
    try {
      return await this.firewall.open(address.host, gitPort(address));
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new DeployRequestError(grpc.status.UNAVAILABLE, `De firewall van de git-gebruiker kon niet worden ingesteld (${reason}).`);
    }
  }

  /** Removes this agent's firewall rules (the server calls this at shutdown). */
  async close(): Promise<void> {
    await this.firewall?.remove().catch((error: unknown) => this.options.logger.warn({ err: error }, 'git deploys: the git firewall rules were not removed'));
  }

  addToServer(server: grpc.Server): void {
    const { logger } = this.options;
    const { reply, stream } = grpcReply({ logger, knownFailures: deployFailure });
    const handlers: DeployServiceServer = {
      deployRepository: (call) =>
        stream(
          call,
          (signal, log) => {
            const send: Send = (event) => {
              if (!signal.aborted) call.write({ event });
            };
            return this.deploy(call.request, send, signal, log);
          },
          'DeployRepository',
        ),
      getDeployKey: (call, callback) => reply(call, callback, () => this.getDeployKey(call.request.projectId, call.request.existingOnly), 'GetDeployKey'),
    };
    server.addService(DeployServiceService, handlers);
  }
}
