import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { createAgentFleet } from './agent-fleet.ts';
import { AgentError } from './agent-error.ts';
import { createUnavailableAgentClient } from './unavailable-agent-client.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-links-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { SESSION_SECRET: 'x'.repeat(40), DEV_LOGIN: '1' };

function linksFile(content: unknown): string {
  const file = path.join(dir, `links-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const two = [
  { name: 'dev1', address: 'dev1.school.nl:7443', siteDomain: 'dev.school.nl', studentDbHost: '10.8.0.1' },
  { name: 'dev2', address: '192.0.2.7:7443', serverName: 'dev2.school.nl', siteDomain: 'dev2.school.nl', studentDbHost: '10.9.0.1', studentDbPort: 3316, dbAdminUrl: 'https://dev2.school.nl/phpmyadmin/' },
];

describe('agent links (AGENT_LINKS_FILE)', () => {
  it('without a file: one link named AGENT_NAME at AGENT_ADDRESS with the single-server settings', () => {
    expect(loadConfig({ ...base, AGENT_ADDRESS: 'localhost:7443', SITE_DOMAIN: 'dev.school.nl', STUDENT_DB_HOST: '10.8.0.1' }).agentLinks).toEqual([
      { name: 'dev1', address: 'localhost:7443', siteDomain: 'dev.school.nl', studentDbHost: '10.8.0.1', studentDbPort: 3306, dbAdminUrl: '/phpmyadmin/' },
    ]);
    expect(loadConfig({ ...base, STUDENT_DB_HOST: '127.0.0.1', STUDENT_DB_PORT: '3307' }).agentLinks[0]).toMatchObject({ studentDbHost: '127.0.0.1', studentDbPort: 3307 });
    expect(() => loadConfig({ ...base, STUDENT_DB_PORT: '70000' })).toThrow(/STUDENT_DB_PORT/);
    expect(loadConfig({ ...base, AGENT_NAME: 'hoofdserver' }).agentLinks[0]?.name).toBe('hoofdserver');
    expect(() => loadConfig({ ...base, AGENT_NAME: 'Dev 1' })).toThrow(/AGENT_NAME/);
  });

  it('reads every dev server from the file; SITE_DOMAIN defaults to the first one’s and may name a joined one', () => {
    const file = linksFile(two);
    const config = loadConfig({ ...base, AGENT_LINKS_FILE: file, STUDENT_DB_HOST: '10.1.0.1' });
    expect(config.agentLinks.map((link) => [link.name, link.address, link.serverName, link.siteDomain, link.studentDbHost, link.studentDbPort, link.dbAdminUrl])).toEqual([
      ['dev1', 'dev1.school.nl:7443', undefined, 'dev.school.nl', '10.8.0.1', 3306, '/phpmyadmin/'],
      ['dev2', '192.0.2.7:7443', 'dev2.school.nl', 'dev2.school.nl', '10.9.0.1', 3316, 'https://dev2.school.nl/phpmyadmin/'],
    ]);
    expect(config.SITE_DOMAIN).toBe('dev.school.nl');
    expect(loadConfig({ ...base, AGENT_LINKS_FILE: file, SITE_DOMAIN: 'dev2.school.nl' }).SITE_DOMAIN).toBe('dev2.school.nl');
    // A dev server that joins later (agent_links) may be where new projects go.
    expect(loadConfig({ ...base, AGENT_LINKS_FILE: file, SITE_DOMAIN: 'elders.school.nl' }).SITE_DOMAIN).toBe('elders.school.nl');
  });

  it('refuses a file that is missing, no JSON, empty, or has bad, unknown or repeated entries — naming the entry', () => {
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: path.join(dir, 'bestaat-niet.json') })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile('{ niet: json') })).toThrow(/could not be read as JSON/);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile([]) })).toThrow(/at least one dev server/);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile([{ ...two[0], address: 'zonder-poort' }]) })).toThrow(/\[0\.address\]: expected host:port/);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile([{ ...two[0], sitedomain: 'x.nl' }]) })).toThrow(/\[0\]: Unrecognized key/);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile([two[0], { ...two[1], name: 'dev1' }]) })).toThrow(/\[1\.name\]: dev1 is already used by entry 0/);
    expect(() => loadConfig({ ...base, AGENT_LINKS_FILE: linksFile([two[0], { ...two[1], siteDomain: 'dev.school.nl' }]) })).toThrow(/\[1\.siteDomain\]/);
  });
});

describe('the agent fleet', () => {
  const fleet = createAgentFleet(
    [
      { name: 'dev1', address: 'a:1', siteDomain: 'dev.school.nl', studentDbHost: '10.8.0.1', studentDbPort: 3306, dbAdminUrl: '/pma/', client: createUnavailableAgentClient('test dev1') },
      { name: 'dev2', address: 'b:1', siteDomain: 'b.dev.school.nl', studentDbHost: '10.9.0.1', studentDbPort: 3306, dbAdminUrl: '/pma/', client: createUnavailableAgentClient('test dev2') },
    ],
    'b.dev.school.nl',
  );

  it('finds a domain’s dev server by the longest site domain that holds it', () => {
    expect(fleet.hostOfDomain('site.dev.school.nl')?.name).toBe('dev1');
    expect(fleet.hostOfDomain('site.b.dev.school.nl')?.name).toBe('dev2');
    expect(fleet.hostOfDomain('b.dev.school.nl')?.name).toBe('dev1');
    expect(fleet.hostOfDomain('site.elders.nl')).toBeNull();
    expect(fleet.forNewUsers.name).toBe('dev2');
  });

  it('gives rows without a host the first link, and a host no longer configured an honest UNAVAILABLE link', async () => {
    expect(fleet.link(null).name).toBe('dev1');
    expect(fleet.link('dev2').studentDbHost).toBe('10.9.0.1');
    const gone = fleet.link('dev3');
    expect(gone.name).toBe('dev3');
    expect(gone.client.status().state).toBe('unreachable');
    const failure = await gone.client.containers.listContainers({}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).unreachable).toBe(true);
    expect((failure as AgentError).details).toContain('dev server dev3 is niet (meer) gekoppeld');
    expect(fleet.link('dev3')).toBe(gone);
  });
});
