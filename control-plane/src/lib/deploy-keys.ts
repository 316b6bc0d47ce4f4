import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';

/** How long the panel waits for the dev server's answer before it shows no key. */
const KEY_DEADLINE_MS = 3_000;

/**
 * The projects' deploy keys as the panel shows them: asked of the project's dev server
 * (GetDeployKey makes the key the first time; the private half stays there) and kept in memory
 * per dev server and project, so reading the panel does not write a row. An agent that does not
 * answer, or is too old for git deploys, gives null (the panel still answers).
 */
export class DeployKeys {
  private readonly known = new Map<string, { publicKey: string; fingerprint: string }>();

  constructor(
    private readonly agents: AgentFleet,
    private readonly logger: Logger,
  ) {}

  async publicKey(host: string | null, projectId: number, requestId?: string): Promise<{ publicKey: string; fingerprint: string } | null> {
    const link = this.agents.link(host);
    const cacheKey = `${link.name}:${projectId}`;
    const cached = this.known.get(cacheKey);
    if (cached) return cached;
    try {
      const key = await link.client.deploys.getDeployKey(projectId, { deadlineMs: KEY_DEADLINE_MS, ...(requestId ? { requestId } : {}) });
      if (!key.publicKey) return null;
      this.known.set(cacheKey, key);
      return key;
    } catch (error) {
      const code = error instanceof AgentError ? error.code : 'UNKNOWN';
      this.logger.info({ projectId, host: link.name, code }, 'no deploy key from the dev server');
      return null;
    }
  }
}
