/**
 * The agent's side of the git runner (git-runner-server.ts): a fetch sent over loopback HTTP with
 * the shared secret, its NDJSON lines turned back into progress events and a FetchResult or a
 * GitFetchError, as RepositoryFetcher gives them when git runs inside the agent.
 */
import type { GitProgressEvent } from './git-progress.ts';
import { type FetchJob, type RunnerLine } from './git-runner-protocol.ts';
import { cancelledFetch, type FetchResult, GitFetchError } from './repository-fetcher.ts';

export class GitRunnerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GitRunnerUnavailableError';
  }
}

export interface GitRunnerClientOptions {
  /** http://127.0.0.1:PORT of the runner. */
  baseUrl: string;
  secret: string;
}

export class GitRunnerClient {
  constructor(private readonly options: GitRunnerClientOptions) {}

  async fetch(job: FetchJob, onProgress: (event: GitProgressEvent) => void, signal: AbortSignal): Promise<FetchResult> {
    const response = await this.request('/fetch', { method: 'POST', body: JSON.stringify(job), headers: { 'Content-Type': 'application/json' }, signal });
    if (response.status !== 200 || !response.body) {
      throw new GitRunnerUnavailableError(`the git runner answered ${response.status}: ${(await response.text().catch(() => '')).slice(0, 200)}`);
    }
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for await (const chunk of response.body) {
        pending += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const text = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (text.trim() === '') continue;
          const line = JSON.parse(text) as RunnerLine;
          if (line.type === 'progress') onProgress(line.event);
          else if (line.type === 'done') return line.result;
          else throw new GitFetchError(line.reason, line.message, line.gitMessages);
        }
      }
    } catch (error) {
      if (error instanceof GitFetchError) throw error;
      if (signal.aborted) throw cancelledFetch();
      throw new GitRunnerUnavailableError('the git runner broke off the fetch', { cause: error });
    }
    if (signal.aborted) throw cancelledFetch();
    throw new GitRunnerUnavailableError('the git runner ended the fetch without an outcome');
  }

  async removeCheckout(projectId: number): Promise<void> {
    const response = await this.request(`/checkouts/${projectId}`, { method: 'DELETE' });
    if (response.status !== 204) throw new GitRunnerUnavailableError(`the git runner answered ${response.status} to removing checkout ${projectId}`);
  }

  private async request(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.options.baseUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), Authorization: `Bearer ${this.options.secret}` } });
    } catch (error) {
      if (init.signal?.aborted) throw cancelledFetch();
      throw new GitRunnerUnavailableError(`the git runner at ${this.options.baseUrl} did not answer`, { cause: error });
    }
  }
}
