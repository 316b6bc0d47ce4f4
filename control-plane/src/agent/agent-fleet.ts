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
 * A name no longer configured gets a link that answers UNAVAILABLE with the reason: its rows
 * show 'onbereikbaar' and nothing of them is deleted.
 */
export interface AgentFleet {
  /** In configuration order; the first is the default of rows without a host. */
  readonly links: readonly AgentLink[];
  /** The link of a row's host (the first for null). */
  link(host: string | null): AgentLink;
  /** Shorthand for link(host).client. */
  forHost(host: string | null): AgentClient;
  /** The dev server whose site domain holds `domain`, or null. */
  hostOfDomain(domain: string): AgentLink | null;
  /** Where new students' databases and VPN configurations go (the link of SITE_DOMAIN). */
  readonly forNewUsers: AgentLink;
  start(): void;
  close(): void;
}

export function createAgentFleet(links: AgentLink[], siteDomain: string): AgentFleet {
  const first = links[0];
  if (!first) throw new Error('an agent fleet needs at least one link');
  const byName = new Map(links.map((link) => [link.name, link]));
  const unknown = new Map<string, AgentLink>();
  const link = (host: string | null): AgentLink => {
    if (host === null) return first;
    const known = byName.get(host) ?? unknown.get(host);
    if (known) return known;
    const missing: AgentLink = {
      ...first,
      name: host,
      address: '',
      client: createUnavailableAgentClient(`dev server ${host} staat niet (meer) in de configuratie (AGENT_LINKS_FILE)`),
    };
    unknown.set(host, missing);
    return missing;
  };
  return {
    links,
    link,
    forHost: (host) => link(host).client,
    // The longest site domain wins (dev.school.nl and a.dev.school.nl may both be dev servers).
    hostOfDomain: (domain) =>
      links
        .filter((candidate) => isInsideSiteDomain(domain, candidate.siteDomain))
        .sort((a, b) => b.siteDomain.length - a.siteDomain.length)[0] ?? null,
    forNewUsers: links.find((candidate) => candidate.siteDomain === siteDomain) ?? first,
    start: () => links.forEach((each) => each.client.start()),
    close: () => links.forEach((each) => each.client.close()),
  };
}

/** A fleet of one agent client (for tests that drive a capturer or command directly). */
export function singleAgentFleet(client: AgentClient, settings: Omit<AgentLinkSettings, 'address'> & { address?: string }): AgentFleet {
  return createAgentFleet([{ address: '', ...settings, client }], settings.siteDomain);
}
