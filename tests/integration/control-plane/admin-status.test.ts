/**
 * GET /api/admin/status through the real control plane with two dev servers (AGENT_LINKS_FILE):
 * dev1 a fake agent with HostStats, dev2 an address where nothing listens. The unreachable one
 * is a row marked unreachable, a broken part is data in its row, an agent older than contract
 * 1.5.0 still gets a row; never an error of the whole page. Admins only.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdminStatusJson, DevServerStatusJson } from '@devplein/contract/status';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { agentCertEnv, makeTestCerts, type TestCerts } from '../../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fakes/fake-agent.ts';
import { findFreePort } from '../../support/clients/ports.ts';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT } from '../../support/stacks/hosting-stack.ts';

const DAY_MS = 86_400_000;

let certDir: string;
let certs: TestCerts;
let agent: FakeAgent;

async function status(): Promise<AdminStatusJson> {
  const { status: code, body } = await (await as(ADMIN)).json<AdminStatusJson>('GET', '/api/admin/status');
  expect(code).toBe(200);
  return body;
}

const row = (body: AdminStatusJson, name: string): DevServerStatusJson => {
  const found = body.servers.find((server) => server.name === name);
  if (!found) throw new Error(`no row for ${name} in ${JSON.stringify(body.servers.map((server) => server.name))}`);
  return found;
};

const stack = seededControlPlane({
  before: async () => {
    certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-admin-status-'));
    certs = await makeTestCerts(certDir);
    agent = await startFakeAgent({ certs });
    const linksFile = path.join(certDir, 'agents.json');
    writeFileSync(
      linksFile,
      JSON.stringify([
        { name: 'dev1', address: agent.address, siteDomain: 'dev.devplein.test' },
        // Nothing listens here: this dev server's agent is down.
        { name: 'dev2', address: `localhost:${await findFreePort()}`, siteDomain: 'dev2.devplein.test' },
      ]),
    );
    return {
      AGENT_LINKS_FILE: linksFile,
      SITE_DOMAIN: 'dev.devplein.test',
      AGENT_ADDRESS: '',
      ...agentCertEnv(certs),
      AGENT_DEADLINE_MS: '2000',
      UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *',
    };
  },
  after: async () => {
    await agent?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  },
});
const as = signedInSessions(() => stack.app.url);

afterEach(() => {
  agent.brokenParts.clear();
  agent.unimplementedMethods.clear();
  agent.mode = 'ok';
  agent.certificateNotAfter = new Date(Date.now() + 400 * DAY_MS);
  agent.lastBackup = { known: false, finishedAt: undefined, ok: false, sizeBytes: 0, message: '' };
});

describe('GET /api/admin/status', () => {
  it('has a row per dev server: the reachable one with its facts, the other one unreachable', async () => {
    agent.addUnmanaged('caddy-infra', 'devplein-test/caddy:1', 'running');
    const body = await status();
    expect(body.servers.map((server) => server.name)).toEqual(['dev1', 'dev2']);

    const dev1 = row(body, 'dev1');
    expect(dev1).toMatchObject({ reachable: true, error: null, siteDomain: 'dev.devplein.test', contractVersion: '1.5.0', hostname: 'fake-agent' });
    expect(Object.keys(dev1.parts ?? {})).toEqual(['docker', 'proxy', 'mysql', 'browser', 'wireguard']);
    expect(Object.values(dev1.parts ?? {}).every((part) => part.ok)).toBe(true);
    expect(dev1.disks.map((disk) => [disk.name, disk.availableBytes, disk.level])).toEqual([
      ['docker', 40e9, 'ok'],
      ['agent', 40e9, 'ok'],
    ]);
    expect(dev1.containers?.byState.running).toBeGreaterThanOrEqual(1);
    expect(dev1.certificate).toMatchObject({ level: 'ok' });
    expect(dev1.certificate?.daysLeft).toBeGreaterThanOrEqual(399);
    expect(dev1.cpu?.cores).toBe(2);
    expect(dev1.memory).toEqual({ totalBytes: 8e9, availableBytes: 5e9 });
    // No backup recorded on the host yet.
    expect(dev1.lastBackup).toBeNull();

    const dev2 = row(body, 'dev2');
    expect(dev2).toMatchObject({ reachable: false, parts: null, disks: [], containers: null, certificate: null, lastBackup: null });
    expect(dev2.error).toBe('geen verbinding met de agent');
  });

  it('shows the control plane’s own client certificate and the link’s CA with their ends', async () => {
    const body = await status();
    const clientEnd = new Date(new X509Certificate(readFileSync(certs.clientCert)).validTo);
    const caEnd = new Date(new X509Certificate(readFileSync(certs.ca)).validTo);
    expect(body.controlPlane.clientCertificate?.notAfter).toBe(clientEnd.toISOString());
    expect(body.controlPlane.linkCa?.notAfter).toBe(caEnd.toISOString());
  });

  it("shows each dev server's last backup as its agent reports it, the control plane's from backup_runs, and what no backup holds", async () => {
    let body = await status();
    expect(body.controlPlane.lastBackup).toBeNull();
    expect(body.backupNotIncluded.join(' ')).toContain('bestanden in de containers van studenten');

    const hostBackupAt = new Date('2026-11-26T03:15:42.000Z');
    agent.lastBackup = { known: true, finishedAt: hostBackupAt, ok: true, sizeBytes: 204_845, message: '3 studentendatabases' };
    await stack.database.knex('backup_runs').insert([
      { role: 'control-plane', started_at: new Date('2026-11-25T03:15:00Z'), finished_at: new Date('2026-11-25T03:15:04Z'), ok: true, size_bytes: 317_485, archive_path: '/var/backups/devplein/a.tar.enc', message: 'ouder' },
      { role: 'control-plane', started_at: new Date('2026-11-26T03:15:00Z'), finished_at: new Date('2026-11-26T03:15:02Z'), ok: false, size_bytes: null, archive_path: null, message: 'pg_dump: verbinding geweigerd' },
    ]);
    try {
      body = await status();
      expect(row(body, 'dev1').lastBackup).toEqual({ at: hostBackupAt.toISOString(), ok: true, sizeBytes: 204_845, message: '3 studentendatabases' });
      // The newest run counts, also when it failed: the page must show a failed night.
      expect(body.controlPlane.lastBackup).toEqual({ at: '2026-11-26T03:15:02.000Z', ok: false, sizeBytes: 0, message: 'pg_dump: verbinding geweigerd' });
      // A record on the host that could not be read is a failed backup, not "none yet".
      agent.lastBackup = { known: true, finishedAt: undefined, ok: false, sizeBytes: 0, message: 'backup-status.json is geen geldige status' };
      expect(row(await status(), 'dev1').lastBackup).toEqual({ at: null, ok: false, sizeBytes: 0, message: 'backup-status.json is geen geldige status' });
    } finally {
      await stack.database.knex('backup_runs').del();
    }
  });

  it('reports a broken part in its row and keeps the rest', async () => {
    agent.brokenParts.set('mysql', 'MariaDB/MySQL op 127.0.0.1:3306 antwoordt niet (ECONNREFUSED)');
    const dev1 = row(await status(), 'dev1');
    expect(dev1.reachable).toBe(true);
    expect(dev1.parts?.mysql).toEqual({ ok: false, detail: 'MariaDB/MySQL op 127.0.0.1:3306 antwoordt niet (ECONNREFUSED)' });
    expect(dev1.parts?.docker.ok).toBe(true);
    expect(dev1.disks).toHaveLength(2);
  });

  it('warns 30 days before the agent’s certificate ends, and says bad once it has', async () => {
    agent.certificateNotAfter = new Date(Date.now() + 12.5 * DAY_MS);
    expect(row(await status(), 'dev1').certificate).toMatchObject({ level: 'warning', daysLeft: 12 });
    agent.certificateNotAfter = new Date(Date.now() + 45 * DAY_MS);
    expect(row(await status(), 'dev1').certificate?.level).toBe('ok');
    agent.certificateNotAfter = new Date(Date.now() - 2 * DAY_MS);
    expect(row(await status(), 'dev1').certificate?.level).toBe('bad');
  });

  it('judges disks by their free share', async () => {
    const disks = agent.disks;
    try {
      agent.disks = [
        { name: 'docker', path: '/var/lib/docker', totalBytes: 100e9, availableBytes: 10e9, ok: true, error: '' },
        { name: 'agent', path: '/var/lib/devplein-agent', totalBytes: 100e9, availableBytes: 2e9, ok: true, error: '' },
      ];
      expect(row(await status(), 'dev1').disks.map((disk) => disk.level)).toEqual(['warning', 'bad']);
    } finally {
      agent.disks = disks;
    }
  });

  it('gives an agent older than contract 1.5.0 a row with what GetInfo says', async () => {
    agent.unimplementedMethods.add('getHostStats');
    const dev1 = row(await status(), 'dev1');
    expect(dev1).toMatchObject({ reachable: true, parts: null, agentVersion: '0.0.0-fake', hostname: 'fake-agent' });
    expect(dev1.error).toMatch(/te oud/);
  });

  it('marks an agent that does not answer within the deadline unreachable, and still answers', async () => {
    agent.slowMs = 4_000;
    agent.mode = 'slow';
    const body = await status();
    expect(row(body, 'dev1')).toMatchObject({ reachable: false, parts: null, error: 'de agent antwoordde niet op tijd' });
    expect(row(body, 'dev2').reachable).toBe(false);
  });

  it('is for admins: 403 for students, developers and the not activated, 401 signed out', async () => {
    expect((await (await as(DOCENT)).json('GET', '/api/admin/status')).status).toBe(200);
    for (const email of [STUDENT, DEVELOPER, NOT_ACTIVATED]) {
      expect((await (await as(email)).json('GET', '/api/admin/status')).status, email).toBe(403);
    }
    expect((await (await as(null)).json('GET', '/api/admin/status')).status).toBe(401);
  });
});
