import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentClient } from '../agent/agent-client.ts';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import type { AgentLinkSettings } from '../config.ts';
import { readActiveAgentLinks, type StoredAgentLink } from './agent-link-store.ts';

/** Makes the client of one stored link (its address, server name and pinned fingerprint). */
export type LinkClientFactory = (link: StoredAgentLink) => AgentClient;

/** What decides whether a link keeps its client: anything the connection depends on. */
function connectionKey(link: StoredAgentLink): string {
  return JSON.stringify([link.address, link.serverName ?? null, link.fingerprint, link.previousFingerprint]);
}

/**
 * Keeps a fleet equal to the active rows of agent_links. `reload()` reads them and replaces the
 * fleet's links: a link whose address or pinned fingerprint is unchanged keeps its client (its
 * health monitor and event relay go on), a revoked one is dropped (its client closed at once),
 * a joined one gets a new client. Reloads run one at a time; a change during a reload causes one
 * more. main.ts calls it on every `a` notice of migration 0014 (from any process on the
 * database). Several control plane replicas each follow the notices on their own.
 */
export class FleetLinks {
  readonly #clients = new Map<AgentClient, string>();
  #running: Promise<void> | undefined;
  #again = false;

  constructor(
    private readonly deps: {
      knex: Knex;
      defaults: Pick<AgentLinkSettings, 'studentDbHost' | 'studentDbPort' | 'dbAdminUrl'>;
      makeClient: LinkClientFactory;
      logger: Logger;
    },
  ) {}

  /** The fleet's first links, read from the table (call once before building the fleet). */
  async initialLinks(): Promise<AgentLink[]> {
    const stored = await readActiveAgentLinks(this.deps.knex, this.deps.defaults);
    return stored.map((link) => this.#fresh(link));
  }

  #fresh(link: StoredAgentLink): AgentLink {
    const { fingerprint: _fingerprint, previousFingerprint: _previous, ...settings } = link;
    const client = this.deps.makeClient(link);
    this.#clients.set(client, connectionKey(link));
    return { ...settings, client };
  }

  /** Brings `fleet` in line with the table; never throws (a failed read is logged, the fleet kept). */
  reload(fleet: AgentFleet): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.#reloadOnce(fleet);
        } catch (error) {
          this.deps.logger.error({ err: error }, 'agent links could not be reloaded; the fleet stays as it was');
        }
      } while (this.#again);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #reloadOnce(fleet: AgentFleet): Promise<void> {
    const stored = await readActiveAgentLinks(this.deps.knex, this.deps.defaults);
    if (stored.length === 0) {
      this.deps.logger.error('no active agent link in agent_links; the fleet stays as it was');
      return;
    }
    const current = new Map(fleet.links.map((link) => [link.name, link]));
    const next = stored.map((link) => {
      const existing = current.get(link.name);
      if (existing && this.#clients.get(existing.client) === connectionKey(link)) {
        const { fingerprint: _fingerprint, previousFingerprint: _previous, ...settings } = link;
        return { ...settings, client: existing.client };
      }
      return this.#fresh(link);
    });
    const before = fleet.links.map((link) => `${link.name}@${this.#clients.get(link.client) ?? ''}`).join(',');
    const after = next.map((link) => `${link.name}@${this.#clients.get(link.client) ?? ''}`).join(',');
    const kept = new Set(next.map((link) => link.client));
    for (const link of fleet.links) if (!kept.has(link.client)) this.#clients.delete(link.client);
    fleet.replaceLinks(next);
    if (before !== after) this.deps.logger.info({ links: next.map((link) => link.name) }, 'agent links reloaded');
  }
}
