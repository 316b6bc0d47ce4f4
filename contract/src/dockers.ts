/*
 * The JSON of the container hosting API, one definition for both ends: the control plane's
 * presenters build these shapes and the web app reads them (the capitalised keys are Docker's,
 * as the original API had them).
 */

import { imageDeploySettingsJson } from './validation/imageDeploy.ts';
import { z } from 'zod';
import { deployCommitJson, dockerDeploySummaryJson } from './deploys.ts';

/** What a container can be asked to do (the student's and the admin's `?action=`). */
export const CONTAINER_ACTIONS = ['start', 'stop', 'pause', 'unpause', 'restart'] as const;
export type ContainerAction = (typeof CONTAINER_ACTIONS)[number];

/** How an exited container ended: Docker's State.OOMKilled and State.ExitCode. */
export const dockerExitJson = z.strictObject({
  /** The kernel stopped it because its memory was full (137 is then the exit code). */
  oomKilled: z.boolean(),
  exitCode: z.number().int(),
});
export type DockerExit = z.infer<typeof dockerExitJson>;

/**
 * The dockerserver stopped the container by itself (idle auto-stop): its site had no visitors
 * for `idleAfterSeconds`. The container is stopped, never removed; starting it is enough.
 */
export const dockerAutoStopJson = z.strictObject({
  reason: z.literal('idle'),
  /** ISO time of the stop. */
  stoppedAt: z.string(),
  /** ISO time of the last visit (or start) the dockerserver saw before it; null when unknown. */
  lastActivityAt: z.string().nullable(),
  /** How long the site had to go without visitors, in seconds (the server's setting at the stop). */
  idleAfterSeconds: z.number(),
});
export type DockerAutoStop = z.infer<typeof dockerAutoStopJson>;

/** One of the signed-in user's projects with its container (GET /api/user/dockers). */
export const userDockerJson = z.strictObject({
  /** Docker id; null while no container exists. */
  Id: z.string().nullable(),
  /** ['/' + project name]. */
  Names: z.array(z.string()),
  /** Image reference of the project's image option ('' when none is chosen yet). */
  Image: z.string(),
  /** Docker's state, or one of the product states below. */
  State: z.string(),
  /** Docker's Status text, or a Dutch explanation for the product states. */
  Status: z.string(),
  Labels: z.strictObject({ projectId: z.number().int() }),
  project: z.strictObject({ id: z.number().int(), name: z.string(), validated: z.boolean().nullable(), docker_id: z.number().int().nullable() }),
  Users: z.array(z.strictObject({ id: z.number().int(), name: z.string() })),
  description: z.string(),
  domain: z.string(),
  ssh: z.boolean(),
  /** 'ssh student@{host} -p {port}' when the image has SSH and a container exists. */
  sshCommand: z.string().nullable(),
  wordpress: z.boolean(),
  /** Set while the container is stopped because the dockerserver stopped it for lack of visitors. */
  autoStop: dockerAutoStopJson.nullable(),
  /** Why an exited container stopped (Docker's State); null while it is not exited, or from a dockerserver that does not say. */
  exit: dockerExitJson.nullable(),
  /** Git deploy (issue 23): null when the project has no repository or its image option no web root. */
  deploy: dockerDeploySummaryJson.nullable(),
});
export type UserDocker = z.infer<typeof userDockerJson>;

/** Product states of a card besides Docker's own (spec §4). */
export const STATE_AWAITING = 'Nog niet goed gekeurd!';
export const STATE_REJECTED = 'Afgekeurd';
export const STATE_NOT_CREATED = 'Nog niet gecreëerd';
/** The agent did not answer: the container's state is unknown, never read as stopped. */
export const STATE_UNREACHABLE = 'onbereikbaar';

/**
 * A project's site thumbnail as the admin dockers table shows it (and the answer of
 * POST/GET /api/admin/dockers/{projectId}/screenshot).
 */
export const screenshotStateJson = z.strictObject({
  projectId: z.number().int(),
  /** ISO time the stored thumbnail was taken; null when there is none yet. */
  capturedAt: z.string().nullable(),
  /** ISO time of the last capture attempt, successful or not. */
  lastAttemptAt: z.string().nullable(),
  /** Why the last capture failed (Dutch prefix + the agent's reason); null when it worked. */
  lastError: z.string().nullable(),
  /** A capture is queued or running now. */
  inFlight: z.boolean(),
});
export type ScreenshotState = z.infer<typeof screenshotStateJson>;

/** Every container on the dockerserver, managed or not (GET /api/admin/dockers). */
export const adminDockerJson = z.strictObject({
  Id: z.string(),
  Names: z.array(z.string()),
  Image: z.string(),
  State: z.string(),
  /** Docker's Status text: 'Up 3 minutes', 'Up 2 hours (Paused)', 'Exited (0) 5 minutes ago', … */
  Status: z.string(),
  /** The owner's name, or NO_OWNER. */
  user: z.string(),
  userId: z.number().int().nullable(),
  projectId: z.number().int().nullable(),
  managed: z.boolean(),
  /**
   * The site's screenshot state, for rows that belong to a project (null otherwise). Always
   * sent by GET /api/admin/dockers and the row answers of its actions.
   */
  screenshot: screenshotStateJson.nullable().optional(),
  /** Set while the container is stopped by the idle auto-stop (see DockerAutoStop). */
  autoStop: dockerAutoStopJson.nullable(),
  /** The dev server the container is on (its agent link's name). */
  host: z.string().optional(),
  /** The commit git deploy put there last (issue 23); null when none. Always sent for project rows. */
  deployedCommit: deployCommitJson.nullable().optional(),
});
export type AdminDocker = z.infer<typeof adminDockerJson>;

/** The owner text of a container no project claims (spec §2: clickable to pick an owner). */
export const NO_OWNER = 'NO OWNER';

/** An image option as the admin images page shows it (GET /api/admin/dockers/images). */
export const dockerImageOptionJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  image: z.string(),
  ssh: z.boolean(),
  wordpress: z.boolean(),
  /**
   * Linux capabilities its containers get back after dropping all (names from
   * CONTAINER_CAPABILITIES); containers made earlier keep theirs until recreated.
   */
  capabilities: z.array(z.string()),
  /** Where a git deploy puts a project's code (webRoot null: git deploy is not offered). */
  deploy: imageDeploySettingsJson,
  /** Projects that use this option (delete is refused while > 0). */
  projects: z.number().int(),
});
export type DockerImageOption = z.infer<typeof dockerImageOptionJson>;

/** One container's outcome of a bulk action (POST /api/admin/dockers/bulk). */
export const bulkResultJson = z.strictObject({
  name: z.string(),
  ok: z.boolean(),
  State: z.string().optional(),
  Status: z.string().optional(),
  message: z.string().optional(),
});
export type BulkResult = z.infer<typeof bulkResultJson>;

/** The server takes at most this many names per bulk call. */
export const BULK_MAX_NAMES = 200;
