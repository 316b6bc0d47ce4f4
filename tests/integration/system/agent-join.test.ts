/**
 * Two dev servers join a running control plane the way a sysadmin does it (issue 21): an admin
 * invites each (POST /api/admin/agents/invitations), `install.sh agent --join '<string>'` runs
 * for each (into a throwaway root: the key is made there, only a CSR is sent, the certificate and
 * CA come back checked against the string), and a real host agent starts with those files in a
 * network namespace of its own (a veth to the root namespace, where the control plane runs). The
 * control plane uses both at once, without a restart; a revoked one is dropped and refused.
 * dev2 is invited with `devplein agent invite` (the CLI) and the test prints that output and
 * install.sh's once: the join transcript in the CI log.
 * Each joined server also serves: a student's project on it is approved, its container made
 * through the control plane's API on the real Docker engine, and its page answers through that
 * server's own Caddy; once dev2 is revoked its student is refused clearly while dev3 still serves.
 * Needs root (useradd --prefix, ip netns) and the Docker engine.
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
import type { HttpSession } from '../../support/clients/http-session.ts';
import { startCaddy, visitSite, type TestCaddy } from '../../support/services/caddy.ts';
import { dockerCli, ensureWebImage, randomSuffix, requireDockerEngine } from '../../support/services/docker.ts';
import { startPrivateDockerd, type PrivateDockerd } from '../../support/services/private-docker.ts';
import { requestProject } from '../../support/fixtures/projects.ts';
import { rootWithHostAccounts } from '../../support/stacks/install-roots.ts';
import { AGENT_UNREACHABLE_MESSAGE, DOCKER_SERVER_UNREACHABLE } from '@devplein/contract/messages';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/services/control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { agentCertEnv, makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fakes/fake-agent.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { ADMIN, STUDENT } from '../../support/stacks/hosting-stack.ts';
import { runAgentCli } from '../../support/clients/admin-cli.ts';
import { commandLinesWithSecrets, execveLines, straceArgs } from '../../support/clients/argv-trace.ts';
import { issueAgentCertificate } from '../../../control-plane/src/agent-links/agent-certificate.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');
const tag = randomBytes(3).toString('hex');
const net = 100 + (parseInt(tag, 16) % 100);
/** Project names (container names too) allow letters and hyphens only. */
const letters = randomSuffix();
const DESCRIPTION = 'Een project om te laten zien dat een gekoppelde ontwikkelserver sites bedient.';

interface Server {
  name: string;
  ns: string;
  /** root side and namespace side of its veth. */
  rootIp: string;
  ip: string;
  port: number;
  root: string;
  agent?: TestAgent;
  /** Its own Caddy, inside its namespace. */
  caddy?: TestCaddy;
  /** Its own Docker engine (dev3); none: the machine's shared one (dev2). */
  engine?: PrivateDockerd;
  /** Its agent's Docker network (names are global on the shared engine: unique per run). */
  network: string;
  /** The student's project (and container) on it, and that project's id once requested. */
  project: string;
  projectId?: number;
}

let work: string;
let bundle: string;
let certs: TestCerts;
let database: TestDatabase;
let app: RunningControlPlane;
let dev1: FakeAgent;
let as: ReturnType<typeof signedInSessions>;
const servers: Server[] = [
  { name: 'dev2', ns: `join2-${tag}`, rootIp: `10.${net}.5.1`, ip: `10.${net}.5.2`, port: 7443, root: '', network: `devplein-join2-${tag}`, project: `twee-${letters}` },
  { name: 'dev3', ns: `join3-${tag}`, rootIp: `10.${net}.6.1`, ip: `10.${net}.6.2`, port: 7443, root: '', network: `devplein-join3-${tag}`, project: `drie-${letters}` },
];

const siteDomain = (server: Server): string => `${server.name}.devplein.test`;
const projectDomain = (server: Server): string => `${server.project}.${siteDomain(server)}`;
/** The page the student put on the project's site: it names the project, so a wrong route shows. */
const projectPage = (server: Server): string => `<h1>${server.project}</h1><p>Mijn site op ${server.name}.</p>`;

/**
 * Where the parts of a dev server run here. The agent and its Caddy run inside the server's
 * namespace, as they run side by side on a real dev server: Caddy's admin API and its site port
 * listen on the namespace's own veth address (not its 127.0.0.1, which the test in the root
 * namespace could not reach), so each server's sites answer at its own address on port 80 and a
 * route in one server's Caddy can never answer for the other. The Docker engine is the machine's
 * shared dockerd for dev2 and a private dockerd for dev3, both in the root namespace (an agent
 * talks to its engine's socket, a file, from any namespace): each dev server has an engine of its
 * own, as real ones do, so the admin table (which lists every container of each server's engine,
 * unmanaged ones too) shows each container once, on its own server. Containers publish their HTTP
 * port on the root side of the server's veth (AGENT_PUBLISH_ADDRESS), so the Caddy in the
 * namespace dials its upstream across the veth where a real server's Caddy dials loopback.
 */
function startServerAgent(server: Server, certDir: string): Promise<TestAgent> {
  if (!server.caddy) throw new Error(`${server.name} has no Caddy`);
  return startTestAgent({
    certDir,
    netns: server.ns,
    listenAddress: server.ip,
    port: server.port,
    env: {
      AGENT_CADDY_ADMIN: server.caddy.adminUrl,
      AGENT_CADDY_SERVER: server.caddy.serverName,
      AGENT_CADDY_LISTEN: `${server.caddy.address}:${server.caddy.httpPort}`,
      AGENT_SITE_DOMAIN: siteDomain(server),
      AGENT_DOCKER_NETWORK: server.network,
      ...(server.engine ? { AGENT_DOCKER_SOCKET: server.engine.socket } : {}),
      AGENT_PUBLISH_ADDRESS: server.rootIp,
      AGENT_SSH_BIND_ADDRESS: server.rootIp,
    },
  });
}

/** The domains a server's Caddy routes now. */
async function routedDomains(caddy: TestCaddy): Promise<string[]> {
  const response = await fetch(`${caddy.adminUrl}/config/apps/http/servers/${caddy.serverName}/routes`);
  const routes = (await response.json()) as Array<{ match?: Array<{ host?: string[] }> } | null> | null;
  return (routes ?? []).flatMap((route) => route?.match?.flatMap((match) => match.host ?? []) ?? []);
}

/** A project's site as a visitor gets it from that server's Caddy (at the server's address). */
function visitProject(server: Server, on: Server = server): Promise<{ status: number; body: string }> {
  if (!on.caddy) throw new Error(`${on.name} has no Caddy`);
  return visitSite(on.caddy.httpPort, projectDomain(server), on.caddy.address);
}

/** `docker …` on a server's engine. */
function engineCli(server: Server, args: string[]): Promise<string> {
  return server.engine ? server.engine.cli(args) : dockerCli(args);
}

/** Docker's State of a server's project container on its engine; undefined when it does not exist. */
async function engineState(server: Server, name = server.project): Promise<string | undefined> {
  const out = await engineCli(server, ['ps', '-a', '--filter', `name=^/${name}$`, '--format', '{{.State}}']);
  return out.trim() || undefined;
}

async function student(): Promise<HttpSession> {
  return as(STUDENT);
}

async function makeRoot(name: string): Promise<string> {
  const root = path.join(work, name);
  await rootWithHostAccounts(root);
  cpSyncUnits(root);
  await mkdir(path.join(root, 'usr/bin'), { recursive: true });
  await copyFile('/usr/bin/bash', path.join(root, 'usr/bin/bash'));
  await symlink('usr/bin', path.join(root, 'bin'));
  return root;
}

function cpSyncUnits(root: string): Promise<void> {
  return cp('/usr/lib/systemd/system', path.join(root, 'usr/lib/systemd/system'), { recursive: true });
}

/**
 * `install.sh agent --join -` under strace, the string pasted on its standard input as the invite
 * says: no command line of the run, install.sh's own included, may carry the one-time token
 * (issue 33: /proc/<pid>/cmdline is readable by every local user while the install runs).
 */
async function installJoin(root: string, join: string): Promise<string> {
  const script = path.join(bundle, 'install.sh');
  const trace = path.join(root, '..', `join-${randomBytes(4).toString('hex')}.trace`);
  const [strace, ...straceRest] = straceArgs(trace);
  const running = run(strace!, [...straceRest, script, 'agent', '--root', root, '--no-start', '--packages=skip', '--unsigned', '--join', '-'], {
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    timeout: 60_000,
  });
  running.child.stdin?.end(`${join}\n`);
  const ran = await running.then(
    ({ stdout }) => ({ stdout }),
    (error: unknown) => ({ error }),
  );
  // A failed run (the forged string) is checked too.
  const token = /#([A-Za-z0-9_-]{43})\./.exec(join)?.[1];
  const started = await execveLines(trace);
  await rm(trace, { force: true });
  const leaks = token ? commandLinesWithSecrets(started, { 'the join token': token }) : [];
  if (leaks.length > 0) throw new Error(`install.sh --join started programs with the token on their command line:\n${leaks.join('\n')}`);
  if ('error' in ran) throw ran.error;
  return ran.stdout;
}

/** `devplein agent renew …` on a dev server (host-agent/src/bin/cert-renew.ts), for the agent files in `certDir`. */
async function renewCli(certDir: string, extra: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'host-agent/src/bin/cert-renew.ts', 'renew', '--cert-dir', certDir, ...extra],
      { cwd: repo, env: { ...process.env, DEVPLEIN_DEBUG: '', ...env }, timeout: 60_000 },
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
  requireDockerEngine();
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
  // dev3's own engine; the 'Statische site' option runs the test web image (busybox httpd on :80
  // serving /www), made on both engines without a registry.
  servers[1]!.engine = await startPrivateDockerd();
  const [image] = await Promise.all([ensureWebImage(), ensureWebImage(servers[1]!.engine.host)]);
  await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
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
      // The demo student has projects already; this file adds one per joined server.
      PROJECT_QUOTA: '50',
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
    server.caddy = await startCaddy({ netns: server.ns, listenAddress: server.ip });
  }
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([dev1?.stop(), ...servers.map((server) => server.agent?.stop())]);
  await Promise.all(servers.map((server) => server.caddy?.stop()));
  // dev2's container and network on the shared engine; dev3's engine goes as a whole.
  await dockerCli(['rm', '-f', servers[0]!.project]).catch(() => undefined);
  await dockerCli(['network', 'rm', servers[0]!.network]).catch(() => undefined);
  await servers[1]!.engine?.destroy();
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
        // The command says `--join -`; the string is on a line of its own, to paste at install.sh's question.
        expect(invited.stdout).toContain("sudo ./install.sh agent --join -\n");
        joinString = /^ {2}(https?:\/\/\S+#\S+)$/m.exec(invited.stdout)?.[1] ?? '';
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
            `root@${server.name}:~/devplein-0.1.0# sudo ./install.sh agent --join -`,
            'Koppelopdracht (van devplein agent invite; wordt niet getoond): ',
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
      server.agent = await startServerAgent(server, dir);
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

  it('each joined dev server serves a student\'s project: its container on the engine, its route in its own Caddy, its page at its own address', async () => {
    const imageId = Number((await database.knex('docker_images').where({ name: 'Statische site' }).first('id'))!.id);
    for (const server of servers) {
      server.projectId = await requestProject(await student(), { name: server.project, domain: projectDomain(server), imageId, description: DESCRIPTION });
      // The domain decides the dev server.
      expect(await database.knex('projects').where({ id: server.projectId }).first('host')).toEqual({ host: server.name });
      expect((await (await as(ADMIN)).json('PUT', `/api/admin/projects/${server.projectId}`, {})).status).toBe(200);
      const created = await (await student()).json<Array<{ State: string }>>('POST', '/api/user/dockers', { id: server.projectId });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body[0]?.State).toBe('running');
      // On the real engine, on this server's network, its HTTP port published on this server's side of the veth.
      const [inspected] = JSON.parse(await engineCli(server, ['inspect', server.project])) as Array<{
        State: { Status: string };
        NetworkSettings: { Networks: Record<string, unknown>; Ports: Record<string, Array<{ HostIp: string }> | null> };
      }>;
      expect(inspected?.State.Status).toBe('running');
      expect(Object.keys(inspected?.NetworkSettings.Networks ?? {})).toEqual([server.network]);
      expect(inspected?.NetworkSettings.Ports['80/tcp']?.map((binding) => binding.HostIp)).toEqual([server.rootIp]);
      // The student's page, put in the container as their upload would be.
      await engineCli(server, ['exec', server.project, 'sh', '-c', 'printf "%s\\n" "$1" > /www/index.html', 'sh', projectPage(server)]);
    }

    for (const [index, server] of servers.entries()) {
      const other = servers[1 - index]!;
      await waitFor(async () => (await routedDomains(server.caddy!)).includes(projectDomain(server)), { timeoutMs: 20_000, description: `${projectDomain(server)} routed by ${server.name}'s Caddy` });
      const page = await visitProject(server);
      expect(page.status).toBe(200);
      expect(page.body).toBe(`${projectPage(server)}\n`);
      // The other server's Caddy has no route for it: its catch-all answers.
      expect(await routedDomains(other.caddy!)).not.toContain(projectDomain(server));
      expect((await visitProject(server, other)).status).toBe(404);
      // Nor the other server's engine a container of it.
      expect(await engineState(other, server.project)).toBeUndefined();
    }

    // The admin table asks every link: each container on its own server.
    const rows = await (await as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers');
    expect(rows.status).toBe(200);
    const ours = rows.body.filter((row) => servers.some((server) => row.Names[0] === `/${server.project}`));
    expect(ours.map((row) => [row.Names[0], row.host, row.State])).toEqual(expect.arrayContaining(servers.map((server) => [`/${server.project}`, server.name, 'running'])));
    expect(ours).toHaveLength(servers.length);
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
    dev2.agent = await startServerAgent(dev2, dir);
    const row = async () => (await status()).servers.find((each) => each.name === dev2.name);
    await waitFor(async () => (await row())?.reachable === true && (await row())?.certificate?.level === 'warning', { timeoutMs: 30_000, description: 'dev2 up with a certificate that ends in 15 days' });
    expect((await row())?.certificate?.daysLeft).toBe(14);

    // Not due yet with a shorter threshold: nothing happens.
    const early = await renewCli(dir, ['--days', '7']);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stdout).toMatch(/^Het certificaat van agent-dev2 is nog 14 dagen geldig \(tot .+\); vernieuwen gebeurt vanaf 7 dagen voor het einde\.\n$/);

    // What an intruder copied before the rotation: the current pair (issue 35).
    const stolen = path.join(work, 'stolen-dev2');
    await mkdir(stolen, { recursive: true });
    for (const file of ['agent.pem', 'agent-key.pem', 'ca.pem', 'control-plane-url']) await copyFile(path.join(dir, file), path.join(stolen, file));
    // systemctl as on the server, for --restart: it answers success (this test restarts the agent itself below).
    const shims = path.join(work, 'shims');
    await mkdir(shims, { recursive: true });
    await writeFile(path.join(shims, 'systemctl'), `#!/bin/sh\necho "$@" >> ${path.join(shims, 'systemctl.log')}\n`, { mode: 0o755 });

    // Due (30 days, the status page's warning): renewed over the control plane's HTTPS, with the current key's signature.
    const renewed = await renewCli(dir, ['--restart'], { PATH: `${shims}:${process.env.PATH ?? ''}` });
    console.log(`=== devplein agent renew op dev2 (issue 21) ===\nroot@dev2:~# devplein agent renew\n${renewed.stdout}${renewed.stderr}=== einde ===`);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout).toContain('Certificaat van agent-dev2 vernieuwd: geldig tot ');
    const cert = new X509Certificate(readFileSync(path.join(dir, 'agent.pem')));
    expect(cert.subject).toBe('CN=agent-dev2');
    expect(cert.subjectAltName).toBe(`DNS:agent-dev2, IP Address:${dev2.ip}`);
    expect(cert.checkPrivateKey(createPrivateKey(readFileSync(path.join(dir, 'agent-key.pem'))))).toBe(true);
    expect((statSync(path.join(dir, 'agent-key.pem')).mode & 0o777).toString(8)).toBe('640');
    // Restarted: the old key is gone from the server (its certificate may stay: it is public).
    expect(readFileSync(path.join(shims, 'systemctl.log'), 'utf8')).toBe('restart devplein-agent\n');
    expect.soft(() => statSync(path.join(dir, 'agent-key.pem.old')), 'agent-key.pem.old after a successful restart').toThrow();
    const fingerprint = cert.fingerprint256.replace(/:/g, '').toLowerCase();
    expect(await database.knex('agent_links').where({ name: dev2.name }).first()).toMatchObject({ cert_fingerprint: fingerprint, previous_cert_fingerprint: old.fingerprint, status: 'active' });
    expect(await database.knex('audit_log').where({ action: 'agent.renew', subject_id: dev2.name }).pluck('actor_id')).toEqual([null]);

    // Until it restarts, the agent still serves the old certificate: still accepted (the pin it renewed from).
    await waitFor(async () => (await row())?.reachable === true, { timeoutMs: 20_000, description: 'dev2 still reachable on its old certificate' });
    await dev2.agent?.stop();
    dev2.agent = await startServerAgent(dev2, dir);
    await waitFor(async () => (await row())?.reachable === true && (await row())?.certificate?.level === 'ok', { timeoutMs: 30_000, description: 'dev2 back on its renewed certificate' });
    expect((await row())?.certificate).toMatchObject({ notAfter: new Date(cert.validTo).toISOString(), daysLeft: 364, level: 'ok' });
    // Seen with the new certificate in a handshake: the one it renewed from is accepted no more (issue 35)...
    const link = () => database.knex('agent_links').where({ name: dev2.name }).first<{ cert_fingerprint: string; previous_cert_fingerprint: string | null }>();
    await waitFor(async () => (await link()).previous_cert_fingerprint === null, { timeoutMs: 20_000, description: 'the previous fingerprint cleared once dev2 was seen with its renewed certificate' });
    // ...so the copy made before the rotation renews nothing: the real server's pin stays.
    const intruder = await renewCli(stolen, ['--force']);
    expect(intruder.code, intruder.stdout).toBe(3);
    expect(intruder.stderr).toContain('De control plane weigerde de vernieuwing (403): Dit certificaat hoort niet (meer) bij een gekoppelde ontwikkelserver.');
    expect(await link()).toMatchObject({ cert_fingerprint: fingerprint, previous_cert_fingerprint: null });
    await waitFor(async () => (await row())?.reachable === true, { timeoutMs: 20_000, description: 'dev2 still reachable on its renewed certificate' });
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
    dev3.agent = await startServerAgent(dev3, path.join(newRoot, 'etc/devplein/agent'));
    await waitFor(async () => (await status()).servers.find((each) => each.name === 'dev3')?.reachable === true, { timeoutMs: 30_000, description: 'dev3 back with its new certificate' });
  }, 120_000);

  it('once dev2 is revoked its student\'s action is refused clearly and changes nothing; dev3, joined again, still serves its project', async () => {
    const [dev2, dev3] = [servers[0]!, servers[1]!];
    expect((await (await as(ADMIN)).json('POST', '/api/admin/agents/dev2/revoke')).status).toBe(200);
    await waitFor(async () => !(await status()).servers.some((row) => row.name === 'dev2'), { timeoutMs: 10_000, description: 'dev2 dropped' });

    const refused = await (await student()).json<{ message?: string }>('PUT', `/api/user/dockers/${dev2.projectId}?action=stop`);
    expect(refused.status).toBe(503);
    expect(refused.body.message).toBe(AGENT_UNREACHABLE_MESSAGE);
    expect(await engineState(dev2)).toBe('running');
    // Its card says so: 'onbereikbaar', never a state the control plane cannot know.
    const mine = await (await student()).json<Array<{ Names: string[]; State: string; Status: string }>>('GET', '/api/user/dockers');
    expect(mine.status).toBe(200);
    expect(mine.body.find((row) => row.Names[0] === `/${dev2.project}`)).toMatchObject({ State: STATE_UNREACHABLE, Status: DOCKER_SERVER_UNREACHABLE });

    // dev3's page still answers, and the control plane acts on it through its new link.
    expect((await visitProject(dev3)).body).toBe(`${projectPage(dev3)}\n`);
    const restarted = await (await student()).json<Array<{ State: string }>>('PUT', `/api/user/dockers/${dev3.projectId}?action=restart`);
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200);
    expect(restarted.body[0]?.State).toBe('running');
    await waitFor(async () => (await visitProject(dev3)).body === `${projectPage(dev3)}\n`, { timeoutMs: 20_000, description: `${projectDomain(dev3)} serving again after its restart` });

    const rows = (await (await as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers')).body;
    expect(rows.find((row) => row.Names[0] === `/${dev3.project}`)).toMatchObject({ host: 'dev3', State: 'running' });
  }, 120_000);
});
