/**
 * Two dev servers join a running control plane the way a sysadmin does it (issue 21): an admin
 * invites each (POST /api/admin/agents/invitations), `install.sh agent --join '<string>'` runs
 * for each (into a throwaway root: the key is made there, only a CSR is sent, the certificate and
 * CA come back checked against the string), and a real host agent starts with those files in a
 * network namespace of its own (a veth to the root namespace, where the control plane runs). The
 * control plane uses both at once, without a restart; a revoked one is dropped and refused.
 * dev2 is invited with `devplein agent invite` (the CLI) and the test prints that output and
 * install.sh's once: the join transcript in the CI log.
 * Needs root (useradd --prefix, ip netns).
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentInvitationJson, AgentLinkJson } from '@devplein/contract/agent-links';
import type { AdminStatusJson } from '@devplein/contract/status';
import { STATE_UNREACHABLE, type AdminDocker } from '@devplein/contract/dockers';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/control-plane.ts';
import { signedInSessions } from '../../support/http-session.ts';
import { agentCertEnv, makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../../support/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fake-agent.ts';
import { waitFor } from '../../support/ports.ts';
import { ADMIN } from '../../support/hosting-stack.ts';
import { runAgentCli } from '../../support/admin-cli.ts';
import { issueAgentCertificate } from '../../../control-plane/src/agent-links/agent-certificate.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');
const tag = randomBytes(3).toString('hex');
const net = 100 + (parseInt(tag, 16) % 100);

interface Server {
  name: string;
  ns: string;
  /** root side and namespace side of its veth. */
  rootIp: string;
  ip: string;
  port: number;
  root: string;
  agent?: TestAgent;
}

let work: string;
let bundle: string;
let certs: TestCerts;
let database: TestDatabase;
let app: RunningControlPlane;
let dev1: FakeAgent;
let as: ReturnType<typeof signedInSessions>;
const servers: Server[] = [
  { name: 'dev2', ns: `join2-${tag}`, rootIp: `10.${net}.5.1`, ip: `10.${net}.5.2`, port: 7443, root: '' },
  { name: 'dev3', ns: `join3-${tag}`, rootIp: `10.${net}.6.1`, ip: `10.${net}.6.2`, port: 7443, root: '' },
];

async function makeRoot(name: string): Promise<string> {
  const root = path.join(work, name);
  await mkdir(path.join(root, 'etc'), { recursive: true });
  for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
    const lines = readFileSync(`/etc/${file}`, 'utf8').split('\n');
    await writeFile(path.join(root, 'etc', file), lines.filter((line) => !line.startsWith('devplein')).join('\n'), { mode: statSync(`/etc/${file}`).mode & 0o777 });
  }
  cpSyncUnits(root);
  await mkdir(path.join(root, 'usr/bin'), { recursive: true });
  await copyFile('/usr/bin/bash', path.join(root, 'usr/bin/bash'));
  await symlink('usr/bin', path.join(root, 'bin'));
  return root;
}

function cpSyncUnits(root: string): Promise<void> {
  return cp('/usr/lib/systemd/system', path.join(root, 'usr/lib/systemd/system'), { recursive: true });
}

async function installJoin(root: string, join: string): Promise<string> {
  const { stdout } = await run(path.join(bundle, 'install.sh'), ['agent', '--root', root, '--no-start', '--packages=skip', '--join', join], {
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    timeout: 60_000,
  });
  return stdout;
}

/** `devplein agent renew …` on a dev server (host-agent/src/cli/cert-renew.ts), for the agent files in `certDir`. */
async function renewCli(certDir: string, extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'host-agent/src/cli/cert-renew.ts', 'renew', '--cert-dir', certDir, ...extra],
      { cwd: repo, env: { ...process.env, DEVPLEIN_DEBUG: '' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function invite(server: Server): Promise<AgentInvitationJson> {
  const answer = await (await as(ADMIN)).json<AgentInvitationJson>('POST', '/api/admin/agents/invitations', {
    name: server.name,
    address: `${server.ip}:${server.port}`,
    site_domain: `${server.name}.devplein.test`,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

async function status(): Promise<AdminStatusJson> {
  return (await (await as(ADMIN)).json<AdminStatusJson>('GET', '/api/admin/status')).body;
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('needs root (install.sh, ip netns)');
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-join-'));
  bundle = path.join(work, 'devplein-0.1.0');
  await mkdir(path.join(bundle, 'bin'), { recursive: true });
  await copyFile(path.join(repo, 'scripts/lib/release/devplein.sh'), path.join(bundle, 'bin/devplein'));
  await chmod(path.join(bundle, 'bin/devplein'), 0o755);
  await writeFile(path.join(bundle, 'VERSION'), '0.1.0\n');
  await cp(path.join(repo, 'deploy'), path.join(bundle, 'deploy'), { recursive: true });
  await copyFile(path.join(repo, 'deploy/install.sh'), path.join(bundle, 'install.sh'));
  await chmod(path.join(bundle, 'install.sh'), 0o755);

  // The control plane's machine: the link CA (its key read through AGENT_CA_KEY_FILE) and dev1.
  certs = await makeTestCerts(path.join(work, 'ca'));
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  dev1 = await startFakeAgent({ certs });
  app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      AGENT_ADDRESS: dev1.address,
      AGENT_NAME: 'dev1',
      SITE_DOMAIN: 'dev.devplein.test',
      ...agentCertEnv(certs),
      AGENT_CA_KEY_FILE: certs.caKey,
      AGENT_DEADLINE_MS: '3000',
      UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *',
    },
  });
  as = signedInSessions(() => app.url);

  // Each new dev server: a network namespace with a veth to the root namespace.
  for (const [index, server] of servers.entries()) {
    await run('ip', ['netns', 'add', server.ns]);
    await run('ip', ['netns', 'exec', server.ns, 'ip', 'link', 'set', 'lo', 'up']);
    await run('ip', ['link', 'add', `vj${index}${tag}`, 'type', 'veth', 'peer', 'name', `vjn${index}${tag}`]);
    await run('ip', ['link', 'set', `vjn${index}${tag}`, 'netns', server.ns]);
    await run('ip', ['address', 'add', `${server.rootIp}/30`, 'dev', `vj${index}${tag}`]);
    await run('ip', ['link', 'set', `vj${index}${tag}`, 'up']);
    await run('ip', ['netns', 'exec', server.ns, 'ip', 'address', 'add', `${server.ip}/30`, 'dev', `vjn${index}${tag}`]);
    await run('ip', ['netns', 'exec', server.ns, 'ip', 'link', 'set', `vjn${index}${tag}`, 'up']);
    server.root = await makeRoot(server.name);
  }
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([dev1?.stop(), ...servers.map((server) => server.agent?.stop())]);
  for (const [index, server] of servers.entries()) {
    await run('ip', ['link', 'del', `vj${index}${tag}`]).catch(() => undefined);
    await run('ip', ['netns', 'del', server.ns]).catch(() => undefined);
  }
  await database?.destroy();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('dev servers that join with install.sh agent --join', () => {
  it('refuses a join string whose CA sha256 is not the link CA, installing nothing', async () => {
    const invitation = await invite(servers[0]!);
    const forged = invitation.joinString.replace(/\.[0-9a-f]{64}$/, `.${'ab'.repeat(32)}`);
    const failure = await installJoin(servers[0]!.root, forged).then(
      () => '',
      (error: { stderr?: string }) => error.stderr ?? String(error),
    );
    expect(failure).toContain('not the one of the join string');
    expect(() => statSync(path.join(servers[0]!.root, 'etc/devplein/agent/agent.pem'))).toThrow();
  }, 90_000);

  it('joins two dev servers, each with a key of its own; the running control plane uses both', async () => {
    for (const server of servers) {
      let joinString: string;
      let adminOutput = '';
      if (server === servers[0]) {
        // dev2 as the sysadmin does it: `devplein agent invite` on the control plane's server.
        const args = ['invite', server.name, '--address', `${server.ip}:${server.port}`, '--site-domain', `${server.name}.devplein.test`];
        const invited = await runAgentCli(args, { DATABASE_URL: database.url, APP_URL: app.url, ...agentCertEnv(certs), AGENT_CA_KEY_FILE: certs.caKey });
        expect(invited.code, invited.stderr).toBe(0);
        joinString = /--join '([^']+)'/.exec(invited.stdout)?.[1] ?? '';
        expect(joinString, invited.stdout).not.toBe('');
        adminOutput = `beheer@control-plane:~$ sudo devplein agent ${args.join(' ')}\n${invited.stdout}`;
      } else {
        joinString = (await invite(server)).joinString;
      }
      const transcript = await installJoin(server.root, joinString);
      if (adminOutput) {
        // Printed once, so a reader of the CI log sees the whole join as a sysadmin sees it.
        console.log(
          [
            `=== Koppeltranscript ${server.name} (issue 21) ===`,
            adminOutput.trimEnd(),
            '',
            `root@${server.name}:~/devplein-0.1.0# sudo ./install.sh agent --join '${joinString}'`,
            '(in deze test met --root <tijdelijke map> --no-start --packages=skip erbij)',
            transcript.trimEnd(),
            `=== einde koppeltranscript ${server.name} ===`,
          ].join('\n'),
        );
      }
      expect(transcript).toContain(`gekoppeld: CN=agent-${server.name}`);
      const dir = path.join(server.root, 'etc/devplein/agent');
      const cert = new X509Certificate(readFileSync(path.join(dir, 'agent.pem')));
      expect(cert.subject).toBe(`CN=agent-${server.name}`);
      expect(cert.subjectAltName).toBe(`DNS:agent-${server.name}, IP Address:${server.ip}`);
      expect(readFileSync(path.join(dir, 'ca.pem'), 'utf8')).toBe(readFileSync(certs.ca, 'utf8'));
      expect((statSync(path.join(dir, 'agent-key.pem')).mode & 0o777).toString(8)).toBe('640');
      // A second run with the same (used) string changes nothing.
      expect(await installJoin(server.root, joinString)).toContain('al gekoppeld met deze koppelopdracht');
      server.agent = await startTestAgent({ certDir: dir, netns: server.ns, listenAddress: server.ip, port: server.port });
    }
    await waitFor(
      async () => {
        const rows = (await status()).servers;
        return servers.every((server) => rows.find((row) => row.name === server.name)?.reachable === true);
      },
      { timeoutMs: 30_000, description: 'dev2 and dev3 reachable' },
    );
    const rows = (await status()).servers;
    for (const server of servers) expect(rows.find((row) => row.name === server.name)?.certificate?.detail).toContain(`agent-${server.name}`);
    // Each real agent answers for its own engine's containers (the admin dockers list asks every link).
    const dockers = await (await as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers');
    expect(dockers.status).toBe(200);
    expect(dockers.body.filter((row) => row.State === STATE_UNREACHABLE)).toEqual([]);
  }, 120_000);

  it('a joined dev server renews its certificate near its end by itself, without a new invitation; the status page shows the new end', async () => {
    const dev2 = servers[0]!;
    const dir = path.join(dev2.root, 'etc/devplein/agent');
    expect(readFileSync(path.join(dir, 'control-plane-url'), 'utf8')).toBe(`${app.url}\n`);
    // A short-lived certificate: dev2 as if it joined 350 days ago (15 days left), pinned as a join pins it.
    const csr = (await run('openssl', ['req', '-new', '-key', path.join(dir, 'agent-key.pem'), '-subj', '/CN=x'])).stdout;
    const old = await issueAgentCertificate({
      csrPem: csr,
      name: dev2.name,
      address: `${dev2.ip}:${dev2.port}`,
      caCertPem: readFileSync(certs.ca, 'utf8'),
      caKeyPem: readFileSync(certs.caKey, 'utf8'),
      now: new Date(Date.now() - 350 * 86_400_000),
    });
    await writeFile(path.join(dir, 'agent.pem'), old.certPem);
    await database.knex('agent_links').where({ name: dev2.name }).update({ cert_fingerprint: old.fingerprint, cert_not_after: old.notAfter });
    await dev2.agent?.stop();
    dev2.agent = await startTestAgent({ certDir: dir, netns: dev2.ns, listenAddress: dev2.ip, port: dev2.port });
    const row = async () => (await status()).servers.find((each) => each.name === dev2.name);
    await waitFor(async () => (await row())?.reachable === true && (await row())?.certificate?.level === 'warning', { timeoutMs: 30_000, description: 'dev2 up with a certificate that ends in 15 days' });
    expect((await row())?.certificate?.daysLeft).toBe(14);

    // Not due yet with a shorter threshold: nothing happens.
    const early = await renewCli(dir, ['--days', '7']);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stdout).toMatch(/^Het certificaat van agent-dev2 is nog 14 dagen geldig \(tot .+\); vernieuwen gebeurt vanaf 7 dagen voor het einde\.\n$/);

    // Due (30 days, the status page's warning): renewed over the control plane's HTTPS, with the current key's signature.
    const renewed = await renewCli(dir);
    console.log(`=== devplein agent renew op dev2 (issue 21) ===\nroot@dev2:~# devplein agent renew\n${renewed.stdout}${renewed.stderr}=== einde ===`);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout).toContain('Certificaat van agent-dev2 vernieuwd: geldig tot ');
    const cert = new X509Certificate(readFileSync(path.join(dir, 'agent.pem')));
    expect(cert.subject).toBe('CN=agent-dev2');
    expect(cert.subjectAltName).toBe(`DNS:agent-dev2, IP Address:${dev2.ip}`);
    expect(cert.checkPrivateKey(createPrivateKey(readFileSync(path.join(dir, 'agent-key.pem'))))).toBe(true);
    expect((statSync(path.join(dir, 'agent-key.pem')).mode & 0o777).toString(8)).toBe('640');
    const fingerprint = cert.fingerprint256.replace(/:/g, '').toLowerCase();
    expect(await database.knex('agent_links').where({ name: dev2.name }).first()).toMatchObject({ cert_fingerprint: fingerprint, previous_cert_fingerprint: old.fingerprint, status: 'active' });
    expect(await database.knex('audit_log').where({ action: 'agent.renew', subject_id: dev2.name }).pluck('actor_id')).toEqual([null]);

    // Until it restarts, the agent still serves the old certificate: still accepted (the pin it renewed from).
    await waitFor(async () => (await row())?.reachable === true, { timeoutMs: 20_000, description: 'dev2 still reachable on its old certificate' });
    await dev2.agent?.stop();
    dev2.agent = await startTestAgent({ certDir: dir, netns: dev2.ns, listenAddress: dev2.ip, port: dev2.port });
    await waitFor(async () => (await row())?.reachable === true && (await row())?.certificate?.level === 'ok', { timeoutMs: 30_000, description: 'dev2 back on its renewed certificate' });
    expect((await row())?.certificate).toMatchObject({ notAfter: new Date(cert.validTo).toISOString(), daysLeft: 364, level: 'ok' });
    // Renewed once: the next run says how long it still holds.
    expect((await renewCli(dir)).stdout).toContain('is nog 364 dagen geldig');
  }, 180_000);

  it('a revoked dev server is dropped at once and refused from then on', async () => {
    const revoked = await (await as(ADMIN)).json<AgentLinkJson>('POST', '/api/admin/agents/dev3/revoke');
    expect(revoked.status).toBe(200);
    await waitFor(async () => !(await status()).servers.some((row) => row.name === 'dev3'), { timeoutMs: 10_000, description: 'dev3 dropped' });
    expect((await status()).servers.find((row) => row.name === 'dev2')?.reachable).toBe(true);
    // Its certificate still works at TLS level, but the control plane no longer has a link for it:
    // a re-join needs a new invitation, whose certificate gets a new pin.
    const links = (await (await as(ADMIN)).json<AgentLinkJson[]>('GET', '/api/admin/agents')).body;
    expect(links.find((link) => link.name === 'dev3')).toMatchObject({ status: 'revoked' });
    // Nor can it renew its certificate: the control plane no longer pins it.
    const renewal = await renewCli(path.join(servers[1]!.root, 'etc/devplein/agent'), ['--force']);
    expect(renewal.code).toBe(3);
    expect(renewal.stderr).toContain('De control plane weigerde de vernieuwing (403): Dit certificaat hoort niet (meer) bij een gekoppelde ontwikkelserver.');

    // Invited and joined again (a new key, a new pin) while the old agent still serves the old
    // certificate of the same CA at the same address: the control plane refuses it.
    const dev3 = servers[1]!;
    const again = await invite(dev3);
    const newRoot = await makeRoot('dev3-again');
    await installJoin(newRoot, again.joinString);
    let refusal = '';
    await waitFor(
      async () => {
        const row = (await status()).servers.find((each) => each.name === 'dev3');
        refusal = row?.error ?? '';
        return row?.reachable === false && refusal.includes('ander certificaat dan bij het koppelen is vastgelegd');
      },
      { timeoutMs: 20_000, description: 'the old certificate of dev3 refused' },
    );
    await dev3.agent?.stop();
    dev3.agent = await startTestAgent({ certDir: path.join(newRoot, 'etc/devplein/agent'), netns: dev3.ns, listenAddress: dev3.ip, port: dev3.port });
    await waitFor(async () => (await status()).servers.find((each) => each.name === 'dev3')?.reachable === true, { timeoutMs: 30_000, description: 'dev3 back with its new certificate' });
  }, 120_000);
});
