/**
 * The git runner (issue 23): the agent's git work done by a process of its own unprivileged user
 * (devplein-git, deploy/systemd/devplein-git.service), so a repository's contents and git's own
 * network traffic never run as the agent, which holds the Docker socket. The agent fences this
 * user's traffic to the one git host of each fetch (git-firewall.ts, an iptables owner rule) and
 * talks to this server over loopback with a shared secret (protocol: git-runner-protocol.ts).
 *
 * One fetch per project at a time (the agent serialises a project's deploys; a second one for the
 * same project while one runs answers 409).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { BodyTooLargeError, hasSecret, readBody } from '../loopback-server.ts';
import { fetchJobSchema, RUNNER_MAX_BODY_BYTES, runnerCheckoutDir, type FetchJob, type RunnerLine } from './git-runner-protocol.ts';
import { type GitCredentials, GitFetchError, RepositoryFetcher } from './repository-fetcher.ts';

export interface GitRunnerServerOptions {
  host: string;
  port: number;
  secret: string;
  /** Checkouts, git's HOME and known hosts, the deploy key of a running fetch. */
  stateDir: string;
  logger: Logger;
  /** The git program (default `git` from PATH); tests may pass another. */
  gitPath?: string;
}

export interface RunningGitRunnerServer {
  port: number;
  close(): Promise<void>;
}

function answer(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message }));
}

export async function startGitRunnerServer(options: GitRunnerServerOptions): Promise<RunningGitRunnerServer> {
  const { logger, stateDir } = options;
  const running = new Set<number>();
  await mkdir(join(stateDir, 'checkouts'), { recursive: true, mode: 0o750 });
  await mkdir(join(stateDir, 'run'), { recursive: true, mode: 0o700 });

  async function fetchJob(job: FetchJob, response: http.ServerResponse): Promise<void> {
    const controller = new AbortController();
    // The agent went away (cancelled deploy, agent stopped): so does this fetch.
    response.on('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    response.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    const send = (line: RunnerLine): void => {
      if (!response.destroyed) response.write(`${JSON.stringify(line)}\n`);
    };
    const fetcher = new RepositoryFetcher({
      policy: job.policy,
      stateDir: join(stateDir, 'git'),
      timeoutMs: job.timeoutMs,
      maxBytes: job.maxBytes,
      ...(options.gitPath ? { gitPath: options.gitPath } : {}),
    });
    let keyFolder: string | undefined;
    try {
      let credentials: GitCredentials;
      if (job.credentials.kind === 'deploy-key') {
        keyFolder = await mkdtemp(join(stateDir, 'run', 'key-'));
        const privateKeyPath = join(keyFolder, 'id_ed25519');
        await writeFile(privateKeyPath, job.credentials.privateKey.endsWith('\n') ? job.credentials.privateKey : `${job.credentials.privateKey}\n`, { mode: 0o600 });
        credentials = { kind: 'deploy-key', privateKeyPath };
      } else credentials = job.credentials;
      const result = await fetcher.fetch({
        address: job.address,
        checkoutDir: runnerCheckoutDir(stateDir, job.projectId),
        ...(job.branch !== undefined ? { branch: job.branch } : {}),
        ...(job.commit !== undefined ? { commit: job.commit } : {}),
        credentials,
        onProgress: (event) => send({ type: 'progress', event }),
        signal: controller.signal,
      });
      send({ type: 'done', result });
    } catch (error) {
      if (error instanceof GitFetchError) send({ type: 'failed', reason: error.reason, message: error.message, gitMessages: error.gitMessages });
      else {
        logger.error({ err: error, projectId: job.projectId }, 'git runner: a fetch failed unexpectedly');
        send({ type: 'failed', reason: 'git-failed', message: 'De git-runner kon de repository niet ophalen.', gitMessages: [] });
      }
    } finally {
      if (keyFolder) await rm(keyFolder, { recursive: true, force: true });
      response.end();
    }
  }

  const server = http.createServer((request, response) => {
    void (async () => {
      if (!hasSecret(request.headers.authorization, options.secret)) return answer(response, 401, 'unauthorized');
      const url = new URL(request.url ?? '/', 'http://runner');
      const removal = /^\/checkouts\/(\d{1,10})$/.exec(url.pathname);
      if (request.method === 'DELETE' && removal) {
        const projectId = Number(removal[1]);
        if (running.has(projectId)) return answer(response, 409, 'a fetch of this project is running');
        await rm(runnerCheckoutDir(stateDir, projectId), { recursive: true, force: true });
        response.writeHead(204).end();
        return;
      }
      if (request.method !== 'POST' || url.pathname !== '/fetch') return answer(response, 404, 'not found');
      let job: FetchJob;
      try {
        const parsed = fetchJobSchema.safeParse(JSON.parse(await readBody(request, RUNNER_MAX_BODY_BYTES)));
        if (!parsed.success) return answer(response, 400, parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
        job = parsed.data;
      } catch (error) {
        return error instanceof BodyTooLargeError ? answer(response, 413, error.message) : answer(response, 400, 'not JSON');
      }
      if (running.has(job.projectId)) return answer(response, 409, 'a fetch of this project is running');
      running.add(job.projectId);
      const started = performance.now();
      try {
        await fetchJob(job, response);
      } finally {
        running.delete(job.projectId);
        logger.info({ projectId: job.projectId, ms: Math.round(performance.now() - started) }, 'git runner: fetch ended');
      }
    })().catch((error: unknown) => {
      logger.error({ err: error }, 'git runner: request failed');
      if (!response.headersSent) answer(response, 500, 'internal error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

