/*
 * Push to deploy (issue 23): the JSON of a project's git deploys, one definition for both ends.
 * The control plane's presenters build these shapes, the web app's dockers card reads them, and
 * the realtime events on the container's channel carry them.
 */
import { z } from 'zod';

/** Where a deploy is: waiting in the project's queue, running on the dev server, or finished. */
export const DEPLOY_STATUSES = ['queued', 'running', 'deployed', 'failed', 'superseded'] as const;
export type DeployStatus = (typeof DEPLOY_STATUSES)[number];

/**
 * What started a deploy: creating the container, the card's 'Bijwerken', a push (webhook), or
 * 'terug naar deze versie' on an earlier deploy.
 */
export const DEPLOY_TRIGGERS = ['create', 'button', 'webhook', 'rollback'] as const;
export type DeployTrigger = (typeof DEPLOY_TRIGGERS)[number];

/** The step a log line belongs to (the agent contract's DeployPhase). */
export const DEPLOY_PHASES = ['fetch', 'build', 'copy', 'after-update', 'swap', 'queue'] as const;
export type DeployPhaseName = (typeof DEPLOY_PHASES)[number];

/** Why a finished deploy failed (the agent contract's DeployOutcome, plus the control plane's own). */
export const DEPLOY_FAILURES = [
  'fetch-failed',
  'auth-failed',
  'too-large',
  'timed-out',
  'build-failed',
  'after-update-failed',
  'copy-failed',
  /** The container was not there or not running when the deploy's turn came. */
  'no-container',
  /** The dev server did not answer, or is too old for git deploys. */
  'agent-unavailable',
  /** The control plane stopped while the deploy ran (the old site stays). */
  'interrupted',
] as const;
export type DeployFailure = (typeof DEPLOY_FAILURES)[number];

/** The commit a deploy fetched. */
export const deployCommitJson = z.strictObject({
  /** Full hash (40 hex). */
  hash: z.string(),
  /** First 7 characters, as git shows them. */
  shortHash: z.string(),
  /** First line of the commit message. */
  subject: z.string(),
  author: z.string(),
  /** ISO time the commit was authored. */
  time: z.string(),
});
export type DeployCommitView = z.infer<typeof deployCommitJson>;

/** One line of a deploy's log (Dutch for the agent's and the control plane's own lines). */
export const deployLogLineJson = z.strictObject({
  phase: z.enum(DEPLOY_PHASES),
  text: z.string(),
  /** 0–100 for git's progress, null otherwise. */
  percent: z.number().nullable(),
});
export type DeployLogLine = z.infer<typeof deployLogLineJson>;

/** One deploy of a project, as the card and its history show it. */
export const projectDeployJson = z.strictObject({
  id: z.number().int(),
  projectId: z.number().int(),
  status: z.enum(DEPLOY_STATUSES),
  trigger: z.enum(DEPLOY_TRIGGERS),
  /** Branch asked for (null: the repository's default branch). */
  branch: z.string().nullable(),
  /** Set once the fetch got the commit; for a roll back, the commit asked for. */
  commit: deployCommitJson.nullable(),
  /** Who asked (null for a push through the webhook). */
  requestedBy: z.strictObject({ id: z.number().int(), name: z.string() }).nullable(),
  failure: z.enum(DEPLOY_FAILURES).nullable(),
  /** Dutch sentence about a failure (or a note on success, like a restart); null when there is nothing to say. */
  message: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type ProjectDeploy = z.infer<typeof projectDeployJson>;

/** A deploy with its log (GET /api/user/dockers/{projectId}/deploys/{deployId}). */
export const projectDeployDetailJson = projectDeployJson.extend({ log: z.array(deployLogLineJson) });
export type ProjectDeployDetail = z.infer<typeof projectDeployDetailJson>;

/** How git signs in at the school's git server for this project. */
export const DEPLOY_AUTHS = ['none', 'deploy-key', 'token'] as const;
export type DeployAuth = (typeof DEPLOY_AUTHS)[number];

/**
 * The card's git-deploy summary, on every UserDocker of a project whose repository can be
 * deployed (null: no repository, or an image option without a web root).
 */
export const dockerDeploySummaryJson = z.strictObject({
  /** The repository address as the project stores it. */
  repository: z.string(),
  branch: z.string().nullable(),
  /** The deploy that put the site there now (newest 'deployed'); null before the first. */
  current: projectDeployJson.nullable(),
  /** The newest deploy of any status (the one whose log the card shows). */
  latest: projectDeployJson.nullable(),
  /**
   * The project signs in with an HTTPS token but none is stored: it was dropped because the
   * repository changed or the member who stored it left (issue 35). The card says 'Vul het token
   * opnieuw in'; deploys fail until someone does.
   */
  tokenMissing: z.boolean(),
  /**
   * The webhook secret was renewed because a member left (issue 35): pushes fail until the
   * git server's webhook has the new secret. Gone at the first delivery signed with it.
   */
  webhookNotice: z.strictObject({ reason: z.literal('member-left'), since: z.string() }).nullable(),
});
export type DockerDeploySummary = z.infer<typeof dockerDeploySummaryJson>;

/**
 * Everything the card's git-deploy panel needs (GET /api/user/dockers/{projectId}/deploys):
 * the history, the webhook and the deploy key. Members of the project and admins only.
 */
export const projectDeployPanelJson = z.strictObject({
  repository: z.string(),
  branch: z.string().nullable(),
  auth: z.enum(DEPLOY_AUTHS),
  /** Whether an HTTPS token is stored (its value is never sent back). */
  hasToken: z.boolean(),
  /**
   * The stored token's owner and time (issue 35): it is sent only to the address it was entered
   * for, and goes when that member leaves the project or is disabled. null: none stored.
   */
  token: z.strictObject({ storedBy: z.strictObject({ id: z.number().int(), name: z.string() }), storedAt: z.string() }).nullable(),
  /** Newest first, at most 20. */
  deploys: z.array(projectDeployJson),
  /** Where the git server sends its push events, and the secret it signs them with. */
  webhook: z.strictObject({ url: z.string(), secret: z.string() }),
  /** The project's deploy key (for ssh addresses); null when it has none yet or the dev server could not give it. */
  deployKey: z.strictObject({ publicKey: z.string(), fingerprint: z.string() }).nullable(),
  /**
   * 'made': `deployKey` is set; 'none': the project has no key yet (POST …/deploy-key makes it,
   * a read never does: issue 35); 'unknown': the dev server did not answer.
   */
  deployKeyStatus: z.enum(['made', 'none', 'unknown']),
});
export type ProjectDeployPanel = z.infer<typeof projectDeployPanelJson>;

/** Realtime, on the container's channel (private-container.{name}): a deploy's status changed. */
export const DEPLOY_UPDATED_EVENT = 'DeployUpdated';
/** Realtime, on the container's channel: new lines of a running deploy's log. */
export const DEPLOY_LOG_EVENT = 'DeployLog';

/** The payload of DEPLOY_LOG_EVENT. */
export interface DeployLogEvent {
  deployId: number;
  lines: DeployLogLine[];
}

/** The payload of DEPLOY_UPDATED_EVENT. */
export interface DeployUpdatedEvent {
  deploy: ProjectDeploy;
}

/** Dutch words for the card (one place, so the card, its history and the tests agree). */
export const DEPLOY_STATUS_LABELS: Record<DeployStatus, string> = {
  queued: 'In de wachtrij',
  running: 'Bezig met bijwerken',
  deployed: 'Bijgewerkt',
  failed: 'Mislukt',
  superseded: 'Overgeslagen (er kwam een nieuwere push)',
};

export const DEPLOY_TRIGGER_LABELS: Record<DeployTrigger, string> = {
  create: 'bij het aanmaken',
  button: 'met Bijwerken',
  webhook: 'na een push',
  rollback: 'terug naar een eerdere versie',
};

/**
 * The school's git-deploy settings the request form checks addresses against
 * (GET /api/deploy/settings, any signed-in user): the git hosts it allows and whether plain
 * http:// is accepted. Empty `allowedHosts`: git deploy is off and any repository address is
 * refused.
 */
export const deploySettingsJson = z.strictObject({
  allowedHosts: z.array(z.string()),
  allowHttp: z.boolean(),
});
export type DeploySettingsView = z.infer<typeof deploySettingsJson>;
