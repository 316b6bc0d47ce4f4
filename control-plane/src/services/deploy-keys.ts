import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';

/** How long the panel waits for the dev server's answer before it shows no key. */
const KEY_DEADLINE_MS = 3_000;

/** A project's deploy key: its public half and fingerprint. */
export interface PublicDeployKey {
  publicKey: string;
  fingerprint: string;
}

/** What the panel shows: the key, none yet (POST …/deploy-key makes it), or not known (the dev server did not answer). */
export type DeployKeyLookup = { status: 'made'; key: PublicDeployKey } | { status: 'none' } | { status: 'unknown' };

/**
 * The projects' deploy keys as the panel shows them, asked of the project's dev server and kept
 * in memory per dev server and project once made, so reading the panel writes no row. Reading
 * only asks for the key the project has (contract 1.8.0 `existing_only`): a GET makes nothing
 * (issue 35); `create` (POST …/deploy-key) makes it. An agent before 1.8.0 makes the key at the
 * first read anyway (as in 1.7.0). An agent that does not answer, or is too old for git
 * deploys, gives 'unknown' on a read (the panel still answers) and an AgentError on `create`.
 */
export class DeployKeys {
  private readonly known = new Map<string, PublicDeployKey>();

  constructor(
    private readonly agents: AgentFleet,
    private readonly logger: Logger,
  ) {}

  async lookup(host: string | null, projectId: number, requestId?: string): Promise<DeployKeyLookup> {
    const link = this.agents.link(host);
    const cacheKey = `${link.name}:${projectId}`;
    const cached = this.known.get(cacheKey);
    if (cached) return { status: 'made', key: cached };
    try {
      const key = await link.client.deploys.getDeployKey(projectId, { deadlineMs: KEY_DEADLINE_MS, ...(requestId ? { requestId } : {}) });
      if (!key) return { status: 'none' };
      this.known.set(cacheKey, key);
      return { status: 'made', key };
    } catch (error) {
      const code = error instanceof AgentError ? error.code : 'UNKNOWN';
      this.logger.info({ projectId, host: link.name, code }, 'no deploy key from the dev server');
      return { status: 'unknown' };
    }
  }

  /** Makes the project's key on its dev server (the same key when it has one); throws AgentError when the server cannot. */
  async create(host: string | null, projectId: number, requestId?: string): Promise<PublicDeployKey> {
    const link = this.agents.link(host);
    const key = await link.client.deploys.createDeployKey(projectId, requestId ? { requestId } : {});
    this.known.set(`${link.name}:${projectId}`, key);
    return key;
  }
}
