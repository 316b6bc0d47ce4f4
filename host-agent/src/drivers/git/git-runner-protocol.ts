/**
 * What the agent and its git runner (git-runner-server.ts, its own user and unit in production)
 * say to each other over loopback HTTP, with a shared secret as `Authorization: Bearer …`:
 *
 *   POST   /fetch                  a FetchJob → 200 and NDJSON lines: `progress` events, then one
 *                                  `done` (the commit) or `failed` (a GitFetchError's reason)
 *   DELETE /checkouts/{projectId}  removes a project's checkout → 204
 *
 * The checkouts live in the runner's state folder (`<state>/checkouts/<projectId>`), which the
 * agent reads (group read) to copy a tree into a container. Closing the connection of a fetch
 * cancels it.
 */
import { z } from 'zod';
import type { GitProgressEvent } from './git-progress.ts';
import type { FetchResult, GitFetchFailure } from './repository-fetcher.ts';

export const RUNNER_MAX_BODY_BYTES = 64 * 1024;

export const fetchJobSchema = z.object({
  projectId: z.number().int().min(1).max(2_147_483_647),
  address: z.string().min(1).max(2_000),
  branch: z.string().min(1).max(255).optional(),
  commit: z.string().regex(/^[0-9a-f]{40}$/).optional(),
  policy: z.object({ allowedHosts: z.array(z.string().min(1).max(259)).max(100), allowHttp: z.boolean() }),
  timeoutMs: z.number().int().min(1_000).max(3_600_000),
  maxBytes: z.number().int().min(1).max(100 * 1024 * 1024 * 1024),
  credentials: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('anonymous') }),
    z.object({ kind: z.literal('token'), token: z.string().min(1).max(4_000), username: z.string().min(1).max(200).optional() }),
    // The unsealed private key (OpenSSH PEM): written 0600 for this one fetch and removed after.
    z.object({ kind: z.literal('deploy-key'), privateKey: z.string().min(1).max(16_000) }),
  ]),
});

export type FetchJob = z.infer<typeof fetchJobSchema>;

export type RunnerLine =
  | { type: 'progress'; event: GitProgressEvent }
  | { type: 'done'; result: FetchResult }
  | { type: 'failed'; reason: GitFetchFailure; message: string; gitMessages: string[] };

/** A project's checkout in the runner's state folder. */
export function runnerCheckoutDir(stateDir: string, projectId: number): string {
  return `${stateDir.replace(/\/+$/, '')}/checkouts/${projectId}`;
}
