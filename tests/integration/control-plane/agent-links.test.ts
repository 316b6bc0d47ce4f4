/**
 * Dev servers that join (issue 21) through the real control plane and PostgreSQL: an admin's
 * invitation gives a one-time join command; POST /api/agents/join redeems its token once for a
 * certificate `agent-<name>` (serverAuth only, whatever the CSR asks); the link is active with
 * the certificate's fingerprint pinned and the running fleet uses it at once; a link whose pinned
 * fingerprint differs is refused; a revoked link is dropped at once.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentInvitationJson, AgentJoinJson, AgentLinkJson } from '@devplein/contract/agent-links';
import type { AdminStatusJson } from '@devplein/contract/status';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { agentCertEnv, makeTestCerts, type TestCerts } from '../../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fakes/fake-agent.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { ADMIN } from '../../support/stacks/hosting-stack.ts';
import { runAgentCli } from '../../support/clients/admin-cli.ts';

let dir: string;
let certs: TestCerts;
let dev1: FakeAgent;
let joinedAgent: FakeAgent | undefined;
const cliAgents: FakeAgent[] = [];

const stack = seededControlPlane({
  before: async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-agent-links-'));
    certs = await makeTestCerts(path.join(dir, 'ca'));
    dev1 = await startFakeAgent({ certs });
    return {
      AGENT_ADDRESS: dev1.address,
      AGENT_NAME: 'dev1',
      SITE_DOMAIN: 'dev.devplein.test',
      ...agentCertEnv(certs),
      AGENT_CA_KEY_FILE: certs.caKey,
      AGENT_DEADLINE_MS: '2000',
      UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *',
    };
  },
  after: async () => {
    await Promise.all([dev1?.stop(), joinedAgent?.stop(), ...cliAgents.map((agent) => agent.stop())]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
});
const as = signedInSessions(() => stack.app.url);

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A new key in `<name>-key.pem` and its CSR asking for `subject`, as install.sh makes them. */
function keyAndCsr(name: string, subject = '/CN=devplein-control-plane'): string {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}-key.pem`]);
  return openssl(['req', '-new', '-key', `${name}-key.pem`, '-subj', subject]);
}

async function invite(name: string, address: string, siteDomain: string): Promise<AgentInvitationJson> {
  const answer = await (await as(ADMIN)).json<AgentInvitationJson>('POST', '/api/admin/agents/invitations', { name, address, site_domain: siteDomain });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

/** The token of a join string `<url>#<token>.<ca sha256>`. */
const tokenOf = (invitation: AgentInvitationJson): string => invitation.joinString.split('#')[1]!.split('.')[0]!;

async function join(token: string, csr: string): Promise<{ status: number; body: AgentJoinJson & { message?: string; errors?: Record<string, string[]> } }> {
  const response = await fetch(`${stack.app.url}/api/agents/join`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ csr }),
  });
  return { status: response.status, body: (await response.json()) as AgentJoinJson & { message?: string } };
}

async function serverRow(name: string): Promise<AdminStatusJson['servers'][number] | undefined> {
  const { body } = await (await as(ADMIN)).json<AdminStatusJson>('GET', '/api/admin/status');
  return body.servers.find((server) => server.name === name);
}

async function links(): Promise<AgentLinkJson[]> {
  return (await (await as(ADMIN)).json<AgentLinkJson[]>('GET', '/api/admin/agents')).body;
}

describe('agent links', () => {
  it('seeds the configured link into agent_links (not pinned)', async () => {
    expect(await links()).toEqual([expect.objectContaining({ name: 'dev1', status: 'active', origin: 'config', fingerprint: null })]);
  });

  it('refuses a bad invitation with field errors', async () => {
    const answer = await (await as(ADMIN)).json<{ errors: Record<string, string[]> }>('POST', '/api/admin/agents/invitations', { name: 'Dev 2', address: 'geen-poort', site_domain: 'x' });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['address', 'name', 'site_domain']);
    const taken = await (await as(ADMIN)).json<{ errors: Record<string, string[]> }>('POST', '/api/admin/agents/invitations', { name: 'dev9', address: 'localhost:1', site_domain: 'dev.devplein.test' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.site_domain?.[0]).toContain('dev1');
    const active = await (await as(ADMIN)).json('POST', '/api/admin/agents/invitations', { name: 'dev1', address: 'localhost:1', site_domain: 'ander.devplein.test' });
    expect(active.status).toBe(409);
  });

  it('joins a dev server once: agent-<name>, serverAuth only, pinned, used by the running fleet; a second use is gone', async () => {
    // The address the control plane dials: the joined certificate carries its host (localhost) as SAN.
    const address = `localhost:${await findFreePort()}`;
    const invitation = await invite('dev2', address, 'twee.devplein.test');
    // The string is pasted at install.sh's question, on no command line (issue 33); no release signer on this machine.
    expect(invitation.joinCommand).toBe('sudo ./install.sh agent --join -');
    const caFingerprint = new X509Certificate(openssl(['x509', '-in', certs.ca])).fingerprint256.replace(/:/g, '').toLowerCase();
    expect(invitation.joinString).toMatch(new RegExp(`^${stack.app.url}#[A-Za-z0-9_-]{43}\\.${caFingerprint}$`));
    const token = tokenOf(invitation);
    // The token is stored hashed only.
    const stored = await stack.database.knex('agent_join_tokens').select('token_hash');
    expect(JSON.stringify(stored)).not.toContain(token);

    expect((await join('A'.repeat(43), keyAndCsr('nobody'))).status).toBe(401);
    // A CSR with an RSA key is refused and leaves the token usable.
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'rsa-key.pem']);
    const rsa = await join(token, openssl(['req', '-new', '-key', 'rsa-key.pem', '-subj', '/CN=x']));
    expect(rsa.status).toBe(422);
    expect(rsa.body.errors?.csr?.[0]).toContain('EC P-256');

    const joined = await join(token, keyAndCsr('dev2'));
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const cert = new X509Certificate(joined.body.certificate);
    expect(cert.subject).toBe('CN=agent-dev2');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.checkIssued(new X509Certificate(joined.body.ca))).toBe(true);
    expect((await join(token, keyAndCsr('again'))).status).toBe(410);
    expect((await links()).find((link) => link.name === 'dev2')).toMatchObject({ status: 'active', origin: 'join', fingerprint: joined.body.fingerprint });

    // The new dev server starts its agent with the certificate: the running control plane uses it without a restart.
    writeFileSync(path.join(dir, 'dev2.pem'), joined.body.certificate);
    joinedAgent = await startFakeAgent({ certs: { ...certs, agentCert: path.join(dir, 'dev2.pem'), agentKey: path.join(dir, 'dev2-key.pem') }, port: Number(address.split(':')[1]) });
    await waitFor(async () => (await serverRow('dev2'))?.reachable === true, { timeoutMs: 20_000, description: 'dev2 reachable through the fleet' });
    // The web app offers the new server's site domain for project requests at once.
    const page = await (await fetch(`${stack.app.url}/dockers`)).text();
    expect(page).toMatch(/<meta name="site-domains" content="dev\.devplein\.test twee\.devplein\.test"/);
    const audit = await stack.database.knex('audit_log').whereIn('action', ['agent.invite', 'agent.join']).orderBy('id').pluck('action');
    expect(audit).toEqual(['agent.invite', 'agent.join']);
  });

  it('refuses an expired token with 410', async () => {
    const invitation = await invite('dev3', 'localhost:1', 'drie.devplein.test');
    await stack.database.knex('agent_join_tokens').update({ expires_at: new Date(Date.now() - 1000) }).whereNull('used_at');
    const answer = await join(tokenOf(invitation), keyAndCsr('dev3'));
    expect(answer.status).toBe(410);
    expect(answer.body.message).toContain('verlopen');
  });

  it('refuses an agent whose certificate is not the pinned one, and drops a revoked link at once', async () => {
    const [{ cert_fingerprint: pinned }] = await stack.database.knex('agent_links').where({ name: 'dev2' }).select('cert_fingerprint');
    // Another certificate of the same CA with the same names would pass CA validation; the pin refuses it.
    await stack.database.knex('agent_links').where({ name: 'dev2' }).update({ cert_fingerprint: '0'.repeat(64) });
    let refusal = '';
    await waitFor(
      async () => {
        const row = await serverRow('dev2');
        refusal = row?.error ?? '';
        return row?.reachable === false && refusal.includes('ander certificaat dan bij het koppelen is vastgelegd');
      },
      { timeoutMs: 20_000, description: 'dev2 refused for another fingerprint' },
    );
    expect(refusal).toContain(`certificaat ${pinned};`);
    await stack.database.knex('agent_links').where({ name: 'dev2' }).update({ cert_fingerprint: pinned });
    await waitFor(async () => (await serverRow('dev2'))?.reachable === true, { timeoutMs: 20_000, description: 'dev2 back with its pinned fingerprint' });

    const revoked = await (await as(ADMIN)).json<AgentLinkJson>('POST', '/api/admin/agents/dev2/revoke');
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    await waitFor(async () => (await serverRow('dev2')) === undefined, { timeoutMs: 10_000, description: 'dev2 dropped from the fleet' });
    expect((await (await as(ADMIN)).json('POST', '/api/admin/agents/dev2/revoke')).status).toBe(404);
    // The last active link cannot be revoked (the fleet needs one).
    expect((await (await as(ADMIN)).json('POST', '/api/admin/agents/dev1/revoke')).status).toBe(409);
  });

  it('devplein agent revoke <name> on the command line: revoked and dropped at once, a second time said so, an unknown name exits 3, the old certificate refused after', async () => {
    // The control plane's env file, as systemd hands it to `devplein agent`.
    const cliEnv = { DATABASE_URL: stack.database.url, APP_URL: stack.app.url, ...agentCertEnv(certs), AGENT_CA_KEY_FILE: certs.caKey };
    const address = `localhost:${await findFreePort()}`;
    const cliJoin = async (keyName: string): Promise<AgentJoinJson> => {
      const invited = await runAgentCli(['invite', 'dev4', '--address', address, '--site-domain', 'vier.devplein.test'], cliEnv);
      expect(invited.code, invited.stderr).toBe(0);
      // The string on its own line, to paste at install.sh's question; the command says `--join -`.
      expect(invited.stdout).toContain('sudo ./install.sh agent --join -\n');
      const token = /^ {2}https?:\/\/[^#\s]+#([A-Za-z0-9_-]{43})\.[0-9a-f]{64}$/m.exec(invited.stdout)?.[1];
      expect(token, invited.stdout).toBeDefined();
      const joined = await join(token!, keyAndCsr(keyName));
      expect(joined.status, JSON.stringify(joined.body)).toBe(200);
      writeFileSync(path.join(dir, `${keyName}.pem`), joined.body.certificate);
      return joined.body;
    };
    const first = await cliJoin('dev4');
    const agent = await startFakeAgent({ certs: { ...certs, agentCert: path.join(dir, 'dev4.pem'), agentKey: path.join(dir, 'dev4-key.pem') }, port: Number(address.split(':')[1]) });
    cliAgents.push(agent);
    await waitFor(async () => (await serverRow('dev4'))?.reachable === true, { timeoutMs: 20_000, description: 'dev4 reachable' });

    const revoked = await runAgentCli(['revoke', 'dev4'], cliEnv);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toBe('Koppeling met dev4 ingetrokken. De control plane gebruikt deze server niet meer; een nieuwe koppeling kan met devplein agent invite dev4.\n');
    expect(await stack.database.knex('agent_links').where({ name: 'dev4' }).first()).toMatchObject({ status: 'revoked', revoked_by: null, cert_fingerprint: first.fingerprint });
    // The running control plane follows the change without a restart (the database notice).
    await waitFor(async () => (await serverRow('dev4')) === undefined, { timeoutMs: 10_000, description: 'dev4 dropped from the fleet' });
    expect((await links()).find((link) => link.name === 'dev4')).toMatchObject({ status: 'revoked' });
    const audit = await stack.database.knex('audit_log').where({ action: 'agent.revoke', subject_id: 'dev4' }).select('actor_id');
    expect(audit).toEqual([{ actor_id: null }]);

    const again = await runAgentCli(['revoke', 'dev4'], cliEnv);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Koppeling met dev4 was al ingetrokken op \d{4}-\d\d-\d\dT[\d:.]+Z\. Er is niets veranderd\.\n$/);
    const unknown = await runAgentCli(['revoke', 'dev99'], cliEnv);
    expect(unknown).toMatchObject({ code: 3, stdout: '' });
    expect(unknown.stderr).toBe('Niet gedaan: dev99 is geen ontwikkelserver van deze control plane (devplein agent list toont ze).\n');
    const last = await runAgentCli(['revoke', 'dev1'], cliEnv);
    expect(last.code).toBe(3);
    expect(last.stderr).toContain('dev1 is de laatste gekoppelde server');
    expect((await runAgentCli(['revoke'], cliEnv)).code).toBe(2);

    // Refused from then on: invited and joined again (a new key, a new pin) while the old agent
    // still answers at the same address with its old certificate of the same CA.
    const second = await cliJoin('dev4-again');
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect(await stack.database.knex('agent_links').where({ name: 'dev4' }).first()).toMatchObject({ status: 'active', cert_fingerprint: second.fingerprint });
    let refusal = '';
    await waitFor(
      async () => {
        const row = await serverRow('dev4');
        refusal = row?.error ?? '';
        return row?.reachable === false && refusal.includes('ander certificaat dan bij het koppelen is vastgelegd');
      },
      { timeoutMs: 20_000, description: 'the revoked certificate of dev4 refused' },
    );
    expect(refusal).toContain(`certificaat ${first.fingerprint};`);
  }, 120_000);
});
