import type { AgentClient } from './agent-client.ts';
import type { AgentLinkSettings } from '../config.ts';
import { createUnavailableAgentClient } from './unavailable-agent-client.ts';
import { isInsideSiteDomain } from '@devplein/contract/validation/projectRequest';

/** One dev server: its settings and the client of its agent. */
export interface AgentLink extends AgentLinkSettings {
  client: AgentClient;
}

/**
 * Every dev server's agent link. Rows (projects, databases, VPN configurations) name their dev
 * server in a `host` column; null is the first link (rows from before there was a second one).
 * A name no longer linked (never, or revoked) gets a link that answers UNAVAILABLE with the
 * reason: its rows show 'onbereikbaar' and nothing of them is deleted.
 *
 * The links change while the process runs (a dev server joins, a link is revoked:
 * agent-links/fleet-links.ts calls `replaceLinks`); `links` and `forNewUsers` are read at each
 * use, never kept.
 */
export interface AgentFleet {
  /** In the links' order; the first is the default of rows without a host. */
  readonly links: readonly AgentLink[];
  /** The link of a row's host (the first for null). */
  link(host: string | null): AgentLink;
  /** Shorthand for link(host).client. */
  forHost(host: string | null): AgentClient;
  /** The dev server whose site domain holds `domain`, or null. */
  hostOfDomain(domain: string): AgentLink | null;
  /** Where new students' databases and VPN configurations go (the link of SITE_DOMAIN). */
  readonly forNewUsers: AgentLink;
  /**
   * Puts a new set of links in place (at least one). Clients that are no longer in it are closed,
   * new ones started when the fleet was started; listeners hear both lists.
   */
  replaceLinks(links: AgentLink[]): void;
  /** Called after each replaceLinks with the links added and the links removed; returns its removal. */
  onChange(listener: (added: readonly AgentLink[], removed: readonly AgentLink[]) => void): () => void;
  start(): void;
  close(): void;
}

export function createAgentFleet(initial: AgentLink[], siteDomain: string): AgentFleet {
  if (!initial[0]) throw new Error('an agent fleet needs at least one link');
  let links: AgentLink[] = initial;
  let byName = new Map(links.map((link) => [link.name, link]));
  let started = false;
  const unknown = new Map<string, AgentLink>();
  const listeners = new Set<(added: readonly AgentLink[], removed: readonly AgentLink[]) => void>();
  const first = (): AgentLink => links[0] as AgentLink;
  const link = (host: string | null): AgentLink => {
    if (host === null) return first();
    const known = byName.get(host) ?? unknown.get(host);
    if (known) return known;
    const missing: AgentLink = {
      ...first(),
      name: host,
      address: '',
      client: createUnavailableAgentClient(`dev server ${host} is niet (meer) gekoppeld (devplein agent list)`),
    };
    unknown.set(host, missing);
    return missing;
  };
  return {
    get links() {
      return links;
    },
    link,
    forHost: (host) => link(host).client,
    // The longest site domain wins (dev.school.nl and a.dev.school.nl may both be dev servers).
    hostOfDomain: (domain) =>
      links
        .filter((candidate) => isInsideSiteDomain(domain, candidate.siteDomain))
        .sort((a, b) => b.siteDomain.length - a.siteDomain.length)[0] ?? null,
    get forNewUsers() {
      return links.find((candidate) => candidate.siteDomain === siteDomain) ?? first();
    },
    replaceLinks(next) {
      if (!next[0]) throw new Error('an agent fleet needs at least one link');
      const nextClients = new Set(next.map((each) => each.client));
      const oldClients = new Set(links.map((each) => each.client));
      const removed = links.filter((each) => !nextClients.has(each.client));
      const added = next.filter((each) => !oldClients.has(each.client));
      links = next;
      byName = new Map(links.map((each) => [each.name, each]));
      unknown.clear();
      for (const gone of removed) gone.client.close();
      if (started) for (const fresh of added) fresh.client.start();
      for (const listener of listeners) listener(added, removed);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: () => {
      started = true;
      links.forEach((each) => each.client.start());
    },
    close: () => {
      started = false;
      links.forEach((each) => each.client.close());
    },
  };
}

/** A fleet of one agent client (for tests that drive a capturer or command directly). */
export function singleAgentFleet(client: AgentClient, settings: Omit<AgentLinkSettings, 'address'> & { address?: string }): AgentFleet {
  return createAgentFleet([{ address: '', ...settings, client }], settings.siteDomain);
}
