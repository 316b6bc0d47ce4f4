import { describe, expect, it } from 'vitest';
import { createAgentFleet, type AgentLink } from './agent-fleet.ts';
import { createUnavailableAgentClient } from './unavailable-agent-client.ts';

/** A link whose client records start/close. */
function link(name: string, siteDomain: string, log: string[]): AgentLink {
  const client = createUnavailableAgentClient('test');
  return {
    name,
    address: `${name}:7443`,
    siteDomain,
    studentDbHost: '10.8.0.1',
    studentDbPort: 3306,
    dbAdminUrl: '/phpmyadmin/',
    client: { ...client, start: () => log.push(`start ${name}`), close: () => log.push(`close ${name}`) },
  };
}

describe('the agent fleet while links change', () => {
  it('drops a removed link at once (client closed, its rows unavailable), starts an added one, tells listeners', () => {
    const log: string[] = [];
    const dev1 = link('dev1', 'een.devplein.test', log);
    const dev2 = link('dev2', 'twee.devplein.test', log);
    const fleet = createAgentFleet([dev1, dev2], 'twee.devplein.test');
    fleet.start();
    expect(fleet.forNewUsers.name).toBe('dev2');
    const heard: string[] = [];
    fleet.onChange((added, removed) => heard.push(`+${added.map((each) => each.name).join(',')} -${removed.map((each) => each.name).join(',')}`));

    const dev3 = link('dev3', 'drie.devplein.test', log);
    fleet.replaceLinks([dev1, dev3]);
    expect(fleet.links.map((each) => each.name)).toEqual(['dev1', 'dev3']);
    expect(log).toEqual(['start dev1', 'start dev2', 'close dev2', 'start dev3']);
    expect(heard).toEqual(['+dev3 -dev2']);
    // A row of the revoked server: a link that answers unavailable, not another server's client.
    expect(fleet.link('dev2').address).toBe('');
    expect(fleet.link('dev2').client).not.toBe(dev1.client);
    expect(fleet.hostOfDomain('x.twee.devplein.test')).toBeNull();
    // SITE_DOMAIN's server is gone: new users go to the first link.
    expect(fleet.forNewUsers.name).toBe('dev1');
    expect(() => fleet.replaceLinks([])).toThrow(/at least one link/);
  });
});
