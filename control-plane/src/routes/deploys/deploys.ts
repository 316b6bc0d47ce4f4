import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { HttpError, notFound, serviceUnavailable, validationFailed } from '../../errors.ts';
import { AgentError } from '../../agent/agent-error.ts';
import { AGENT_UNREACHABLE_MESSAGE } from '@devplein/contract/messages';
import { authorizeProject } from '../../policies/authorize-project.ts';
import { authorizeDeploy, DEPLOY_NOT_OFFERED_MESSAGE, offersGitDeploy } from '../../policies/deploy-policy.ts';
import { loadDockerProject, type DockerProjectRow } from '../../queries/projects.ts';
import { loadDeploySettings, loadProjectDeploy, loadProjectDeploys, type DeploySettingsRow } from '../../queries/deploys.ts';
import { presentDeploy, presentDeployDetail, presentDeployPanel } from '../../presenters/present-deploy.ts';
import { gitPolicyOf } from '../../lib/git-policy.ts';
import { webhookSecretOf } from '../../crypto/webhook-secret.ts';
import { changeDeploySettings } from '../../commands/change-deploy-settings.ts';
import { renewWebhookSecret } from '../../commands/renew-webhook-secret.ts';
import { checkRepositoryAddress } from '@devplein/contract/validation/repositoryAddress';
import { credentialAddressOf, credentialFits } from '../../lib/git-credential.ts';
import {
  changeDeploySettings as changeDeploySettingsEndpoint,
  DEPLOY_SETTINGS_MESSAGES,
  deployDetail,
  deployPanel,
  deploySettings,
  deployWebhook,
  makeDeployKey,
  renewWebhookSecret as renewWebhookSecretEndpoint,
  startDeploy,
} from '@devplein/contract/http/deploys';
import { pathOf } from '@devplein/contract/http/endpoint';
import { handle } from '../handle.ts';

const DEPLOY_NOT_FOUND = 'Deze deploy bestaat niet.';
const DEPLOY_KEY_OLD_AGENT = 'Deze dockerserver kan nog geen deploy key maken.';
const DEPLOY_KEY_FAILED = 'De deploy key kon niet worden gemaakt. Probeer het zo opnieuw.';
const ROLLBACK_UNKNOWN = 'Deze versie bestaat niet (meer) bij dit project.';
const ROLLBACK_NOT_DEPLOYED = 'Je kunt alleen terug naar een versie die online heeft gestaan.';

/** Whether the project's stored token was entered for its repository as it is now (issue 35). */
const tokenFits = (settings: DeploySettingsRow): boolean => settings.git_token_sealed !== null && settings.git_token_address !== null && credentialFits(settings.git_token_address, settings.repro);

/** The path of a project's deploy webhook (the app's URL in front). */
export const deployHookPath = (projectId: number): string => pathOf(deployWebhook, { projectId });

/**
 * Git deploys of a project (issue 23): the school's settings (GET /api/deploy/settings, any
 * activated user), and per project for its members and admins (others 404): the panel, Bijwerken
 * and 'terug naar deze versie', one deploy with its log, the deploy settings and a new webhook
 * secret (contract/src/http/deploys.ts). Deploys are recorded and queued here; the queue
 * (services/deploy-queue.ts) runs them.
 */
export function deployRoutes(deps: AppDeps): AppRouter {
  const { knex, config } = deps;
  const router: AppRouter = new Router();
  const queue = deps.services.deploys;
  const keys = deps.services.deployKeys;
  const policy = gitPolicyOf(config);

  /** The project with git deploy offered, for a member or an admin (404 otherwise). */
  const deployProject = async (userProject: DockerProjectRow | undefined, user: Parameters<typeof authorizeProject>[0]): Promise<{ project: DockerProjectRow; settings: DeploySettingsRow }> => {
    const project = authorizeProject(user, userProject);
    const settings = offersGitDeploy(project) ? await loadDeploySettings(knex, project.id) : undefined;
    if (!settings) throw notFound(DEPLOY_NOT_OFFERED_MESSAGE);
    return { project, settings };
  };

  const panel = async (project: DockerProjectRow, settings: DeploySettingsRow, requestId: string) => {
    // Only the key the project has: reading the panel makes none (POST …/deploy-key does, issue 35).
    const key = await keys.lookup(project.host, project.id, requestId);
    return presentDeployPanel({
      repository: settings.repro as string,
      branch: settings.deploy_branch,
      auth: settings.deploy_auth,
      hasToken: tokenFits(settings),
      token:
        !tokenFits(settings) || settings.git_token_user_id === null
          ? null
          : { storedBy: { id: settings.git_token_user_id, name: settings.git_token_user_name ?? '' }, storedAt: settings.git_token_created_at ?? new Date() },
      deploys: await loadProjectDeploys(knex, project.id),
      webhook: { url: `${config.appUrl}${deployHookPath(project.id)}`, secret: webhookSecretOf(settings, deps.secrets, config.encryptionKey) },
      deployKey: key.status === 'made' ? key.key : null,
      deployKeyStatus: key.status,
    });
  };

  handle(router, deploySettings, async () => ({ allowedHosts: policy.allowedHosts, allowHttp: policy.allowHttp }));

  handle(router, deployPanel, async (ctx, { caller: user, params: { projectId } }) => {
    const { project, settings } = await deployProject(await loadDockerProject(knex, projectId), user);
    return panel(project, settings, ctx.state.requestId);
  });

  handle(router, startDeploy, async (ctx, input) => {
    const { caller: user, params: { projectId } } = input;
    const project = authorizeProject(user, await loadDockerProject(knex, projectId));
    // Read after the authorize step: someone else's project answers 404 whatever the body.
    const { rollbackOf } = input.body;
    authorizeDeploy(project);
    let commit = null;
    if (rollbackOf !== undefined) {
      const earlier = await loadProjectDeploy(knex, project.id, rollbackOf);
      if (!earlier?.commit_hash) throw validationFailed({ rollbackOf: [ROLLBACK_UNKNOWN] });
      // Only to a version that was online (issue 35): a superseded or failed row names a commit nobody saw working.
      if (earlier.status !== 'deployed') throw validationFailed({ rollbackOf: [ROLLBACK_NOT_DEPLOYED] });
      commit = { hash: earlier.commit_hash, subject: earlier.commit_subject, author: earlier.commit_author, time: earlier.committed_at === null ? null : new Date(earlier.committed_at) };
    }
    const decision = await queue.request(
      { projectId: project.id, trigger: commit ? 'rollback' : 'button', branch: project.branch, commit, requestedBy: user.id },
      { projectName: project.name },
    );
    if (!decision.queued) throw new HttpError(409, 'Deze versie staat al klaar.');
    ctx.state.log.info({ userId: user.id, projectId, deployId: decision.deployId, rollbackOf }, 'deploy requested');
    ctx.status = 202;
    return decision.accepted ? presentDeploy(decision.accepted) : { id: decision.deployId };
  });

  handle(router, deployDetail, async (_ctx, { caller: user, params: { projectId, deployId } }) => {
    const project = authorizeProject(user, await loadDockerProject(knex, projectId));
    const row = await loadProjectDeploy(knex, project.id, deployId);
    if (!row) throw notFound(DEPLOY_NOT_FOUND);
    return presentDeployDetail(row);
  });

  handle(router, changeDeploySettingsEndpoint, async (ctx, request) => {
    const { caller: user, params: { projectId } } = request;
    // Someone else's project answers 404 whatever the body (as PUT /api/user/project/{id}).
    const { project, settings } = await deployProject(await loadDockerProject(knex, projectId), user);
    const input = request.body;
    const checked = checkRepositoryAddress(settings.repro as string, policy);
    const protocol = checked.ok ? checked.address.protocol : /^https?:\/\//i.test(settings.repro as string) ? 'https' : 'ssh';
    const token = input.token && input.token.length > 0 ? input.token : null;
    if (input.auth === 'deploy-key' && protocol !== 'ssh') throw validationFailed({ auth: [DEPLOY_SETTINGS_MESSAGES.keyNeedsSsh] });
    if (input.auth === 'token' && protocol !== 'https' && protocol !== 'http') throw validationFailed({ auth: [DEPLOY_SETTINGS_MESSAGES.tokenNeedsHttps] });
    // A token is bound to the address it is entered for (issue 35): one stored for another address does not count.
    const address = credentialAddressOf(settings.repro);
    const stored = tokenFits(settings);
    if (input.auth === 'token' && !token && !stored) throw validationFailed({ token: [DEPLOY_SETTINGS_MESSAGES.tokenRequired] });
    if (input.auth === 'token' && token && address === null) throw validationFailed({ token: [DEPLOY_SETTINGS_MESSAGES.tokenNeedsHttps] });
    await changeDeploySettings({ knex, secrets: deps.secrets }, { ...settings, git_token_sealed: stored ? settings.git_token_sealed : null }, { branch: input.branch, auth: input.auth, token, address }, user.id);
    ctx.state.log.info({ userId: user.id, projectId, auth: input.auth }, 'deploy settings changed');
    const after = (await loadDeploySettings(knex, project.id)) as DeploySettingsRow;
    return panel({ ...project, branch: after.deploy_branch }, after, ctx.state.requestId);
  });

  /*
   * POST /api/user/dockers/{projectId}/deploy-key: makes the project's deploy key on its dev
   * server (the same key when it has one) and answers the panel with it. Members and admins of a
   * project with git deploy (others 404); 503 when the dev server cannot (not reachable, or too
   * old for git deploys). The private half never leaves the dev server (issue 35: a GET makes none).
   */
  handle(router, makeDeployKey, async (ctx, { caller: user, params: { projectId } }) => {
    const { project, settings } = await deployProject(await loadDockerProject(knex, projectId), user);
    try {
      await keys.create(project.host, project.id, ctx.state.requestId);
    } catch (error) {
      if (!(error instanceof AgentError)) throw error;
      ctx.state.log.warn({ userId: user.id, projectId, code: error.code }, 'deploy key not made');
      throw serviceUnavailable(error.code === 'UNIMPLEMENTED' ? DEPLOY_KEY_OLD_AGENT : error.unreachable ? AGENT_UNREACHABLE_MESSAGE : DEPLOY_KEY_FAILED);
    }
    ctx.state.log.info({ userId: user.id, projectId }, 'deploy key made');
    return panel(project, settings, ctx.state.requestId);
  });

  handle(router, renewWebhookSecretEndpoint, async (ctx, { caller: user, params: { projectId } }) => {
    const { project } = await deployProject(await loadDockerProject(knex, projectId), user);
    await renewWebhookSecret({ knex, secrets: deps.secrets }, project.id, user.id);
    ctx.state.log.info({ userId: user.id, projectId }, 'webhook secret renewed');
    return panel(project, (await loadDeploySettings(knex, project.id)) as DeploySettingsRow, ctx.state.requestId);
  });

  return router;
}
