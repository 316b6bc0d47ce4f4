/**
 * Git deploys of a project (issue 23): the school's git policy, and per project for its members
 * and admins (anyone else 404) the panel, Bijwerken and 'terug naar deze versie', one deploy with
 * its log, the deploy settings, the deploy key and a new webhook secret; and the webhook a git
 * server calls on a push.
 */
import { z } from 'zod';
import { deploySettingsJson, DEPLOY_AUTHS, projectDeployDetailJson, projectDeployJson, projectDeployPanelJson } from '../deploys.ts';
import { BRANCH_MESSAGE, isSafeBranchName } from '../validation/repositoryAddress.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';
import { projectIdParams } from './user-dockers.ts';

export const TOKEN_MAX = 500;
export const DEPLOY_SETTINGS_MESSAGES = {
  auth: 'Kies hoe git inlogt: geen, deploy key of token.',
  tokenRequired: 'Geef een token (een persoonlijk toegangstoken met alleen-lezen rechten).',
  tokenShape: `Een token bestaat uit letters, cijfers en tekens zonder spaties (maximaal ${TOKEN_MAX}).`,
  keyNeedsSsh: 'Een deploy key werkt alleen met een ssh-adres (zoals git@server:klas/project.git). Kies een token voor een https-adres.',
  tokenNeedsHttps: 'Een token werkt alleen met een https-adres. Kies een deploy key voor een ssh-adres.',
} as const;

/** PUT …/deploy-settings {branch, auth, token?}: an empty branch is the repository's default. */
export const deploySettingsBody = z.object({
  branch: z
    .union([z.string(), z.null()], { error: BRANCH_MESSAGE })
    .transform((value) => (value === null || value.trim() === '' ? null : value.trim()))
    .refine((value) => value === null || isSafeBranchName(value), BRANCH_MESSAGE),
  auth: z.enum(DEPLOY_AUTHS, { error: DEPLOY_SETTINGS_MESSAGES.auth }),
  token: z
    .string({ error: DEPLOY_SETTINGS_MESSAGES.tokenShape })
    .trim()
    .max(TOKEN_MAX, DEPLOY_SETTINGS_MESSAGES.tokenShape)
    .regex(/^[\x21-\x7e]*$/, DEPLOY_SETTINGS_MESSAGES.tokenShape)
    .optional(),
});

export const deploySettings = endpoint({
  method: 'GET',
  path: '/api/deploy/settings',
  access: 'active',
  summary: 'The git hosts the school allows and whether plain http is allowed (the request form checks addresses against them).',
  answer: json(deploySettingsJson),
});

export const deployPanel = endpoint({
  method: 'GET',
  path: '/api/user/dockers/:projectId/deploys',
  access: 'active',
  summary: "The card's git-deploy panel: history (newest 20), webhook URL and secret, the deploy key if the project has one (a read never makes one). A project without git deploy, or someone else's: 404.",
  params: projectIdParams,
  answer: json(projectDeployPanelJson),
});

export const startDeploy = endpoint({
  method: 'POST',
  path: '/api/user/dockers/:projectId/deploys',
  access: 'active',
  summary:
    "'Bijwerken' ({}): the branch's newest commit, or 'terug naar deze versie' ({rollbackOf}: an earlier deploy that was online): 202 with the queued deploy (`{id}` only when the queue took it over at once). 409 when that version is already waiting; not approved 403.",
  params: projectIdParams,
  body: z.object({ rollbackOf: recordId('Kies een eerdere deploy om naar terug te gaan.').optional() }),
  answer: json(z.union([projectDeployJson, z.strictObject({ id: z.number().int() })])),
});

export const deployDetail = endpoint({
  method: 'GET',
  path: '/api/user/dockers/:projectId/deploys/:deployId',
  access: 'active',
  summary: 'One deploy of the project with its log. Unknown, or someone else’s project: 404.',
  params: z.object({ projectId: recordId('Ongeldig projectnummer.'), deployId: recordId('Ongeldig deploynummer.') }),
  answer: json(projectDeployDetailJson),
});

export const changeDeploySettings = endpoint({
  method: 'PUT',
  path: '/api/user/dockers/:projectId/deploy-settings',
  access: 'active',
  summary:
    'The branch and how git signs in (none, the deploy key for an ssh address, a read-only token for an https one; the token is bound to the address it is entered for and never sent back). Answers the panel. Someone else’s project: 404 whatever the body.',
  params: projectIdParams,
  body: deploySettingsBody,
  answer: json(projectDeployPanelJson),
});

export const makeDeployKey = endpoint({
  method: 'POST',
  path: '/api/user/dockers/:projectId/deploy-key',
  access: 'active',
  summary: "Makes the project's deploy key on its dev server (the same key when it has one; the private half never leaves it) and answers the panel. 503 when the dev server cannot.",
  params: projectIdParams,
  answer: json(projectDeployPanelJson),
});

export const renewWebhookSecret = endpoint({
  method: 'POST',
  path: '/api/user/dockers/:projectId/webhook-secret',
  access: 'active',
  summary: 'A new webhook secret (the old one stops working at once); answers the panel. Audited.',
  params: projectIdParams,
  answer: json(projectDeployPanelJson),
});

export const deployWebhook = endpoint({
  method: 'POST',
  path: '/api/hooks/deploy/:projectId',
  access: 'machine',
  summary:
    "A git server's push event (Gitea/Forgejo, GitHub, GitLab; the raw JSON body, at most 1 MB) signed with the project's webhook secret: a push of the project's branch queues a deploy (202 with it), a ping 200 {ok}, another branch, a tag or another event 202 {ignored}, the commit already deployed 200. A bad or missing signature and an unknown project both 401; a body already received in the last day 409; too many per project 429.",
  // Anything that is not a project id reads as none: answered 401 like a bad signature, never 422.
  params: z.object({ projectId: z.coerce.number().int().positive().max(2_147_483_647).optional().catch(undefined) }),
  answer: json(
    z.union([
      projectDeployJson,
      z.strictObject({ id: z.number().int() }),
      z.strictObject({ ignored: z.string() }),
      z.strictObject({ ok: z.literal(true) }),
    ]),
  ),
});

export const deployEndpoints = [deploySettings, deployPanel, startDeploy, deployDetail, changeDeploySettings, makeDeployKey, renewWebhookSecret, deployWebhook];
