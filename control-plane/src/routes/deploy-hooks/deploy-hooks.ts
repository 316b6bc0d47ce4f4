import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { HttpError } from '../../errors.ts';
import { readRawBody } from '../../middlewares/raw-body.ts';
import { deployRefusal } from '../../policies/deploy-policy.ts';
import { loadDeploySettings, loadProjectDeploy, type DeploySettingsRow } from '../../queries/deploys.ts';
import { clearWebhookNotice, forgetDelivery, rememberDelivery } from '../../queries/hook-deliveries.ts';
import { presentDeploy } from '../../presenters/present-deploy.ts';
import { webhookSecretOf } from '../../crypto/webhook-secret.ts';
import { checkSignature, hookEvent, readPush, type HookSender } from '../../lib/webhook-push.ts';
import { limiter } from '../../middlewares/rate-limit.ts';
import { deployWebhook } from '@devplein/contract/http/deploys';
import type { ReplyOf } from '@devplein/contract/http/endpoint';
import { handle } from '../handle.ts';
import { HOOK_BODY_LIMIT } from './schema.ts';

type HookAnswer = ReplyOf<typeof deployWebhook>;

/** The path prefix the app's body parser and CSRF check leave alone (the HMAC needs the raw bytes; git servers have no session). */
export const DEPLOY_HOOK_PREFIX = deployWebhook.path.slice(0, deployWebhook.path.indexOf(':'));

const BAD_SIGNATURE = 'Ongeldige of ontbrekende handtekening.';
const REPLAYED = 'Deze levering is al eerder ontvangen: een herhaalde levering start geen deploy.';

const ignored = (ctx: AppContext, reason: string): HookAnswer => {
  ctx.status = 202;
  return { ignored: reason };
};

/**
 * POST /api/hooks/deploy/{projectId}: push events of Gitea/Forgejo, GitHub and GitLab, signed with
 * the project's webhook secret (lib/webhook-push.ts). No session and no CSRF token: the signature
 * is the authentication. A missing or bad signature and a project that does not exist both answer
 * 401 (which ids exist is not told) and change nothing; they are logged, not audited (an audit
 * row per forged request would let anyone fill the append-only log). A valid push of the
 * project's branch (or the repository's default branch) queues a deploy (202); other branches,
 * tags, deleted branches and other events are ignored (202 {ignored}); a ping answers 200; the
 * commit the newest deploy already has answers 200 without a new deploy; rejected or unapproved
 * projects 403; more than RATE_LIMIT_DEPLOY_HOOKS_PER_MINUTE signed calls per project 429. A
 * signed body that came in the last day already answers 409 and does nothing (issue 35: the
 * delivery-id headers are not signed, so the body's SHA-256 is the key; queries/hook-deliveries.ts),
 * and the first signed call clears the card's banner about a renewed secret.
 */
export function deployHookRoutes(deps: AppDeps): AppRouter {
  const { knex, config } = deps;
  const router: AppRouter = new Router();
  const queue = deps.services.deploys;
  const take = limiter({ points: config.RATE_LIMIT_DEPLOY_HOOKS_PER_MINUTE });

  /** A signed, new delivery: what it asks for. */
  const answerDelivery = async (ctx: AppContext, project: DeploySettingsRow, body: Buffer, sender: HookSender): Promise<HookAnswer> => {
    const log = ctx.state.log;
    const event = hookEvent(ctx.headers);
    if (event === 'ping') return { ok: true };
    if (event !== 'push') return ignored(ctx, 'Alleen push-events starten een deploy.');
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw new HttpError(400, 'De push kon niet gelezen worden: stuur JSON (application/json).');
    }
    const push = readPush(payload);
    if (!push) throw new HttpError(400, 'Dit is geen push-event dat devplein kent.');
    const refusal = deployRefusal({ validated: project.validated, repro: project.repro, webRoot: project.deploy_web_root });
    if (refusal) throw refusal;
    const wanted = project.deploy_branch ?? push.defaultBranch;
    if (push.branch === null) return ignored(ctx, 'Dit is geen push naar een branch.');
    if (push.after === null) return ignored(ctx, `De branch ${push.branch} is verwijderd.`);
    if (wanted === null) return ignored(ctx, 'De standaardbranch van de repository is onbekend: kies een branch bij het project.');
    if (push.branch !== wanted) return ignored(ctx, `Alleen pushes naar ${wanted} worden gedeployd, niet naar ${push.branch}.`);
    const time = push.headCommit?.time ? new Date(push.headCommit.time) : null;
    const year = time?.getUTCFullYear() ?? Number.NaN;
    const decision = await queue.request(
      {
        projectId: project.id,
        trigger: 'webhook',
        branch: project.deploy_branch,
        commit: { hash: push.after, subject: push.headCommit?.subject ?? null, author: push.headCommit?.author ?? null, time: year >= 1970 && year <= 9999 ? time : null },
        requestedBy: null,
      },
      { skipSameCommit: true, projectName: project.name },
    );
    const deployId = decision.queued ? decision.deployId : decision.duplicateOf;
    // A new deploy as accepted (queued); a duplicate as it is now.
    const row = decision.queued ? decision.accepted : await loadProjectDeploy(knex, project.id, deployId);
    log.info({ projectId: project.id, sender, commit: push.after, deployId, duplicate: !decision.queued }, 'deploy webhook');
    ctx.status = decision.queued ? 202 : 200;
    return row ? presentDeploy(row) : { id: deployId };
  };

  handle(router, deployWebhook, async (ctx, { params: { projectId } }) => {
    const log = ctx.state.log;
    const body = await readRawBody(ctx, HOOK_BODY_LIMIT);
    const project = projectId !== undefined ? await loadDeploySettings(knex, projectId) : undefined;
    // A project that does not exist is checked against a secret nobody has, so both take as long.
    const secret = project ? webhookSecretOf(project, deps.secrets, config.encryptionKey) : 'geen-project';
    const signature = checkSignature(ctx.headers, body, secret);
    if (!project || !signature.ok) {
      log.warn({ projectId: projectId ?? null, known: Boolean(project), reason: signature.ok ? 'unknown-project' : signature.reason, ip: ctx.ip }, 'deploy webhook refused');
      throw new HttpError(401, BAD_SIGNATURE);
    }
    const wait = take ? await take(`deploy-hook:${project.id}`) : null;
    if (wait !== null) {
      ctx.set('Retry-After', String(wait));
      throw new HttpError(429, `Te veel pushes kort na elkaar voor dit project. Wacht ${wait} ${wait === 1 ? 'seconde' : 'seconden'}.`, { retryAfter: wait });
    }
    // Signed with the secret as it is now: the git server has it (a banner about a renewed secret goes).
    if (project.webhook_secret_notice !== null) await clearWebhookNotice(knex, project.id);
    // A replay of a signed body of the last day (issue 35): refused, whatever it is.
    const digest = createHash('sha256').update(body).digest('hex');
    if (!(await rememberDelivery(knex, project.id, digest))) {
      log.warn({ projectId: project.id, sender: signature.sender, ip: ctx.ip }, 'deploy webhook replay refused');
      throw new HttpError(409, REPLAYED);
    }
    try {
      return await answerDelivery(ctx, project, body, signature.sender);
    } catch (error) {
      // Not the push's fault (an HttpError is the answer to this body, also the next time): its retry must pass.
      if (!(error instanceof HttpError)) await forgetDelivery(knex, project.id, digest);
      throw error;
    }
  });


  return router;
}
