/**
 * The files a sysadmin installs (deploy/) hold together: the systemd units pass
 * `systemd-analyze verify`, the agent's helper units (screenshot browser, git runner) match what
 * the agent dials and loads, each env file names exactly the settings its process's config
 * schema reads (with values that parse; for the agent with what its unit sets itself), and the
 * Caddyfile is valid Caddy — and, run for real on loopback with test ports, it serves
 * the control plane over HTTPS next to the student sites the agent routes on its :80 server.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import tls from 'node:tls';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError as ControlPlaneConfigError, configSchema, loadConfig as loadControlPlaneConfig } from '../../../control-plane/src/config.ts';
import { loadConfig as loadAgentConfig } from '../../../host-agent/src/config.ts';
import { agentCheck } from '../../../host-agent/src/cli/config-check-agent.ts';
import { controlPlaneCheck } from '../../../control-plane/src/cli/config-check-control-plane.ts';
import { soketiCheck } from '../../../control-plane/src/cli/config-check-soketi.ts';
import { CaddyProxyDriver } from '../../../host-agent/src/drivers/proxy/caddy-proxy-driver.ts';
import { CATCH_ALL_BODY } from '../../../host-agent/src/drivers/proxy/caddy-route.ts';
import { LineTail, forEachLine, isRunning, stopChild } from '../../../scripts/lib/processes.ts';
import { credentialsAtRest, credentialsDirOf, parseEnvFile, unitCredentials, unitEnvironment, unitSettings } from '../../../server-kit/src/systemd-files.ts';
import { findFreePort, waitFor, waitForHttp } from '../../support/clients/ports.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const deployDir = path.join(root, 'deploy');
const read = (relative: string): string => readFileSync(path.join(deployDir, relative), 'utf8');

/** The variables the agent's zod schema reads: the keys of `environmentSchema = z.object({...})`. */
function agentSchemaKeys(): string[] {
  const source = readFileSync(path.join(root, 'host-agent/src/config.ts'), 'utf8');
  const start = source.indexOf('const environmentSchema = z.object({');
  const end = source.indexOf('\n});', start);
  if (start < 0 || end < 0) throw new Error('environmentSchema = z.object({ ... }); not found in host-agent/src/config.ts');
  return [...source.slice(start, end).matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1] ?? '');
}

/** Replaces every CHANGE_ME with a value of the right shape (what the sysadmin does). */
function fillPlaceholders(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      key === 'ENCRYPTION_KEY' ? value.replace('CHANGE_ME', randomBytes(32).toString('base64')) : value.replaceAll('CHANGE_ME', randomBytes(24).toString('hex')),
    ]),
  );
}

const agentEnv = parseEnvFile(read('systemd/devplein-agent.env'));
const controlPlaneEnv = parseEnvFile(read('systemd/devplein-control-plane.env'));

/** The `<file>` of a unit's `LoadCredential=<name>:<file>`, by name. */
const credentialSource = (text: string, name: string): string | undefined => unitCredentials(text).get(name);

/** A unit's Environment= settings, `%d` as systemd expands it for `unit`. */
const unitEnvironmentOf = (text: string, unit: string): Record<string, string> => unitEnvironment(text, credentialsDirOf(unit));

const agentUnitText = read('systemd/devplein-agent.service');
/** What the agent process sees: its unit's Environment=, then the env file (whose settings win). */
const agentProcessEnv: Record<string, string> = { ...unitEnvironmentOf(agentUnitText, 'devplein-agent.service'), ...agentEnv.values };

describe('systemd units', () => {
  // The units install.sh installs run the release bundle (/opt/devplein/current/bin/devplein),
  // which this machine does not have: install-script.test.ts verifies them where it installed them.
  const units = ['devplein-wireguard@.service'];
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-units-'));
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it.each(units)('systemd-analyze verify accepts %s', (unit) => {
    const copy = path.join(workDir, unit);
    copyFileSync(path.join(deployDir, 'systemd', unit), copy);
    const target = unit.endsWith('@.service') ? path.join(workDir, unit.replace('@.service', '@wg0.service')) : copy;
    if (target !== copy) copyFileSync(copy, target);
    const result = spawnSync('systemd-analyze', ['verify', '--man=no', target], { encoding: 'utf8', timeout: 60_000 });
    expect(result.error, 'systemd-analyze must be installed (Debian: systemd)').toBeUndefined();
    const output = `${result.stdout}${result.stderr}`;
    const aboutUnit = output.split('\n').filter((line) => line.includes(unit.replace('@.service', '@')));
    expect({ status: result.status, aboutUnit }).toEqual({ status: 0, aboutUnit: [] });
  });

  it('gives the agent the settings its job needs', () => {
    const unit = unitSettings(read('systemd/devplein-agent.service'));
    expect(unit.get('EnvironmentFile')).toBe('/etc/devplein/agent.env');
    expect(unit.get('User')).toBe('devplein-agent');
    expect(unit.get('SupplementaryGroups')).toBe('docker devplein-git');
    expect(unit.get('KillMode')).toBe('process');
    expect(unit.get('NoNewPrivileges')).toBe('yes');
    expect(unit.get('ProtectSystem')).toBe('strict');
    expect(unit.get('AmbientCapabilities')).toBe('CAP_NET_ADMIN CAP_NET_RAW');
    expect(unit.get('CapabilityBoundingSet')).toBe('CAP_NET_ADMIN CAP_NET_RAW');
    expect(unit.get('DeviceAllow')).toBe('/dev/net/tun rw');
    expect(`/var/lib/${unit.get('StateDirectory') ?? ''}`).toBe(agentEnv.values.AGENT_DATA_DIR);
    // systemd's SIGKILL must come after the agent's own shutdown deadline.
    const stopSeconds = Number(unit.get('TimeoutStopSec'));
    expect(stopSeconds * 1000).toBeGreaterThan(Number(agentEnv.values.AGENT_SHUTDOWN_TIMEOUT_MS));
    expect(unit.get('ExecStart')).toBe('/opt/devplein/current/bin/devplein agent');
  });

  it('runs the screenshot browser as its own user, sandboxed by Chromium, on loopback, with the secret the agent loads too', () => {
    const unit = unitSettings(read('systemd/devplein-browser.service'));
    const agentUnit = unitSettings(read('systemd/devplein-agent.service'));
    expect(unit.get('User')).toBe(agentEnv.values.AGENT_BROWSER_USER);
    expect(unit.get('SupplementaryGroups')).toBeUndefined();
    expect(unit.get('NoNewPrivileges')).toBe('yes');
    expect(unit.get('CapabilityBoundingSet')).toBe('');
    expect(unit.get('ProtectSystem')).toBe('strict');
    expect(unit.get('IPAddressDeny')).toBe('any');
    expect(unit.get('ExecStart')).toBe('/opt/devplein/current/bin/devplein browser-server');
    expect(unit.get('ExecStart')).not.toContain('--no-sandbox');
    // The browser server listens where the agent dials, and both load the same secret file.
    expect(read('systemd/devplein-browser.service')).toContain(`Environment=BROWSER_LISTEN=${agentEnv.values.AGENT_BROWSER_SERVER}`);
    expect(agentUnit.get('Wants')?.split(' ')).toContain('devplein-browser.service');
    expect(credentialSource(agentUnitText, 'browser-secret')).toBe('/etc/devplein/credentials/browser-secret');
    expect(credentialSource(read('systemd/devplein-browser.service'), 'browser-secret')).toBe(credentialSource(agentUnitText, 'browser-secret'));
    expect(agentEnv.values.AGENT_BROWSER_SECRET_FILE).toBe('/run/credentials/devplein-agent.service/browser-secret');
  });

  it('runs git as its own user in the git runner, on loopback, with the secret the agent loads too; the agent reads its checkouts through the group', () => {
    const text = read('systemd/devplein-git.service');
    const unit = unitSettings(text);
    const agentUnit = unitSettings(agentUnitText);
    const environment = unitEnvironmentOf(text, 'devplein-git.service');
    expect(unit.get('User')).toBe(agentEnv.values.AGENT_GIT_USER);
    expect(unit.get('Group')).toBe(agentEnv.values.AGENT_GIT_USER);
    expect(unit.get('SupplementaryGroups')).toBeUndefined();
    expect(unit.get('ExecStart')).toBe('/opt/devplein/current/bin/devplein git-runner');
    // No capabilities, no way to gain any, a read-only system and nothing of others to see.
    expect(unit.get('CapabilityBoundingSet')).toBe('');
    expect(unit.get('AmbientCapabilities')).toBe('');
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['PrivateDevices', 'yes'],
      ['ProtectProc', 'invisible'],
      ['RestrictAddressFamilies', 'AF_UNIX AF_INET AF_INET6'],
      ['SystemCallArchitectures', 'native'],
    ]) {
      expect(unit.get(key ?? ''), key).toBe(value);
    }
    expect(unit.get('MemoryMax')).toMatch(/^\d+[KMG]$/);
    expect(Number(unit.get('TasksMax'))).toBeGreaterThan(0);
    // Below the agent's weight (systemd's default, 100, when the agent unit sets none).
    expect(Number(unit.get('CPUWeight'))).toBeLessThan(Number(agentUnit.get('CPUWeight') ?? 100));
    // Git reaches its hosts by name: the agent's iptables owner rules fence it, not IPAddressDeny=.
    expect(unit.get('IPAddressDeny')).toBeUndefined();
    expect(text).toMatch(/^# No IPAddressDeny=/m);
    // The state folder is the one the agent reads, group-readable only.
    expect(`/var/lib/${unit.get('StateDirectory') ?? ''}`).toBe(agentEnv.values.AGENT_GIT_RUNNER_STATE_DIR);
    expect(environment.GIT_RUNNER_STATE_DIR).toBe(agentEnv.values.AGENT_GIT_RUNNER_STATE_DIR);
    expect(unit.get('StateDirectoryMode')).toBe('0750');
    expect(unit.get('UMask')).toBe('0027');
    // It listens where the agent dials, and both load the same secret file.
    expect(`http://${environment.GIT_RUNNER_LISTEN ?? ''}`).toBe(agentEnv.values.AGENT_GIT_RUNNER);
    expect(environment.GIT_RUNNER_SECRET_FILE).toBe('/run/credentials/devplein-git.service/git-runner-secret');
    expect(credentialSource(text, 'git-runner-secret')).toBe('/etc/devplein/credentials/git-runner-secret');
    expect(credentialSource(agentUnitText, 'git-runner-secret')).toBe(credentialSource(text, 'git-runner-secret'));
    expect(agentProcessEnv.AGENT_GIT_RUNNER_SECRET_FILE).toBe('/run/credentials/devplein-agent.service/git-runner-secret');
    // Started before the agent, which wants it and reads the checkouts through its group.
    expect(unit.get('Before')).toBe('devplein-agent.service');
    expect(agentUnit.get('Wants')?.split(' ')).toContain('devplein-git.service');
    expect(agentUnit.get('After')?.split(' ')).toContain('devplein-git.service');
    expect(agentUnit.get('SupplementaryGroups')?.split(' ')).toContain(unit.get('Group'));
  });

  it.each([
    ['devplein-agent.service', (port: number) => ({ AGENT_LISTEN: `0.0.0.0:${port}` })],
    ['devplein-control-plane.service', (port: number) => ({ HOST: '127.0.0.1', PORT: String(port) })],
  ])('the readiness check of %s returns once the port answers', async (unit, environment) => {
    const command = unitSettings(read(`systemd/${unit}`)).get('ExecStartPost') ?? '';
    const match = /^\/bin\/bash -c '(.*)'$/.exec(command);
    expect(match, 'ExecStartPost=/bin/bash -c \'...\'').not.toBeNull();
    // What systemd hands bash: $$ → $, %% → %.
    const script = (match?.[1] ?? '').replaceAll('$$', '$').replaceAll('%%', '%');
    const server = await startEcho('ready');
    try {
      const child = spawn('/bin/bash', ['-c', script], { env: { PATH: process.env.PATH, ...environment(server.port) }, stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it.each(['control-plane', 'agent', 'soketi'])('checks the settings of devplein-%s.service before it starts, in the environment it gives the service', (role) => {
    const unit = unitSettings(read(`systemd/devplein-${role}.service`));
    expect(unit.get('EnvironmentFile')).toBe(`/etc/devplein/${role}.env`);
    // --env: what systemd hands over (EnvironmentFile=, Environment=, the credentials), as the service's user.
    expect(unit.get('ExecStartPre')).toBe(`/opt/devplein/current/bin/devplein config check ${role} --env`);
  });

  it('runs the control plane with its env file and data directory', () => {
    const unit = unitSettings(read('systemd/devplein-control-plane.service'));
    expect(unit.get('EnvironmentFile')).toBe('/etc/devplein/control-plane.env');
    expect(`/var/lib/${unit.get('StateDirectory') ?? ''}`).toBe(controlPlaneEnv.values.DATA_DIR);
    expect(unit.get('ExecStart')).toBe('/opt/devplein/current/bin/devplein control-plane');
  });
});

describe('env files', () => {
  it('the agent env file, with the settings its unit sets itself, names exactly the variables the agent config reads', () => {
    const schemaKeys = new Set(agentSchemaKeys());
    expect(schemaKeys.size).toBeGreaterThan(30);
    const fromUnit = Object.keys(unitEnvironmentOf(agentUnitText, 'devplein-agent.service')).filter((key) => schemaKeys.has(key));
    // Set in the unit next to the credential it names (the env file would override it).
    expect(fromUnit).toEqual(['AGENT_GIT_RUNNER_SECRET_FILE']);
    expect(agentEnv.keys.filter((key) => fromUnit.includes(key))).toEqual([]);
    expect([...agentEnv.keys, ...fromUnit].sort()).toEqual([...schemaKeys].sort());
  });

  it('the control plane env file names exactly the variables its config schema reads (but the tests-only ones)', () => {
    const testsOnly = new Set(['DEV_LOGIN_END_SESSION']);
    expect([...controlPlaneEnv.keys].sort()).toEqual(Object.keys(configSchema.shape).filter((key) => !testsOnly.has(key)).sort());
  });

  it('the agent accepts its env file as it stands (with its unit\'s Environment=)', () => {
    const config = loadAgentConfig(agentProcessEnv);
    expect(config.dataDir).toBe('/var/lib/devplein-agent');
    expect(config.vpn.endpoint).toBe('vpn.school.nl:51820');
    expect(config.deploy.runner).toEqual({
      url: 'http://127.0.0.1:9224',
      secretFile: '/run/credentials/devplein-agent.service/git-runner-secret',
      stateDir: '/var/lib/devplein-git',
    });
  });

  it('the control plane refuses the placeholders and accepts real secrets', () => {
    let refusal: unknown;
    try {
      loadControlPlaneConfig(controlPlaneEnv.values);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ControlPlaneConfigError);
    // Every CHANGE_ME is named at once.
    for (const [key, value] of Object.entries(controlPlaneEnv.values)) {
      if (value.includes('CHANGE_ME')) expect(String(refusal), key).toMatch(new RegExp(`\\n  ${key}: `));
    }

    const config = loadControlPlaneConfig(fillPlaceholders(controlPlaneEnv.values));
    expect(config.NODE_ENV).toBe('production');
    expect(config.useDevIdentityProvider).toBe(false);
    expect(config.TRUST_PROXY).toBe(true);
    expect(config.appUrl.startsWith('https://')).toBe(true);
    expect(config.DATABASE_URL).toMatch(/^postgres:\/\//);
  });

  it('devplein config check passes the env files as install.sh fills them in, but for the files they name that this machine lacks', () => {
    const missingFiles = (problems: Array<{ variable: string; problem: string }>): string[] => {
      expect(problems.filter((problem) => !/^het bestand \/etc\/devplein\/.* bestaat niet$/.test(problem.problem))).toEqual([]);
      return problems.map((problem) => problem.variable).sort();
    };
    // The agent's, with its unit's Environment= and the credentials where LoadCredential= takes them from.
    expect(missingFiles(agentCheck.check(credentialsAtRest(agentProcessEnv, agentUnitText, 'devplein-agent.service')))).toEqual(
      ['AGENT_BROWSER_SECRET_FILE', 'AGENT_GIT_RUNNER_SECRET_FILE', 'AGENT_TLS_CA', 'AGENT_TLS_CERT', 'AGENT_TLS_KEY'],
    );
    expect(missingFiles(controlPlaneCheck.check(fillPlaceholders(controlPlaneEnv.values)))).toEqual(['AGENT_CA_KEY_FILE', 'AGENT_TLS_CA', 'AGENT_TLS_CERT', 'AGENT_TLS_KEY']);
    // As shipped, every placeholder is named.
    const placeholders = Object.keys(controlPlaneEnv.values).filter((key) => controlPlaneEnv.values[key]?.includes('CHANGE_ME'));
    const named = controlPlaneCheck.check(controlPlaneEnv.values).map((problem) => problem.variable);
    expect(placeholders.filter((key) => !named.includes(key))).toEqual([]);
    // soketi's: what install.sh writes (the control plane's app) with its unit's listeners.
    const filled = loadControlPlaneConfig(fillPlaceholders(controlPlaneEnv.values));
    const soketiEnv = {
      ...unitEnvironmentOf(read('systemd/devplein-soketi.service'), 'devplein-soketi.service'),
      SOKETI_DEFAULT_APP_ID: filled.REALTIME_APP_ID,
      SOKETI_DEFAULT_APP_KEY: filled.REALTIME_KEY,
      SOKETI_DEFAULT_APP_SECRET: filled.REALTIME_SECRET,
    };
    expect(soketiCheck.check(soketiEnv)).toEqual([]);
    expect(String(unitEnvironmentOf(read('systemd/devplein-soketi.service'), 'devplein-soketi.service').SOKETI_PORT)).toBe(String(filled.REALTIME_PORT));
  });

  it('both sides agree on the shared values', () => {
    const agent = loadAgentConfig(agentProcessEnv);
    const controlPlane = loadControlPlaneConfig(fillPlaceholders(controlPlaneEnv.values));
    expect(agent.screenshots.siteDomain).toBe(controlPlane.SITE_DOMAIN);
    // The VPN server takes the pool's first address; the databases page shows it.
    const [network = ''] = agent.vpn.addressPool.split('/');
    const first = network.replace(/\.(\d+)$/, (_, last: string) => `.${Number(last) + 1}`);
    expect(controlPlane.STUDENT_DB_HOST).toBe(first);
    expect(agent.allowedClients).toContain('devplein-control-plane');
    expect(controlPlane.AGENT_ADDRESS.endsWith(`:${agent.listen.split(':').pop() ?? ''}`)).toBe(true);
  });

  it('the example agent links file of a second dev server is accepted as it stands, with the env file’s other values', () => {
    const file = path.join(deployDir, 'systemd/agents.example.json');
    const config = loadControlPlaneConfig({ ...fillPlaceholders(controlPlaneEnv.values), AGENT_LINKS_FILE: file, SITE_DOMAIN: 'dev2.school.nl' });
    expect(config.agentLinks.map((link) => [link.name, link.siteDomain, link.studentDbHost])).toEqual([
      ['dev1', 'dev.school.nl', '10.8.0.1'],
      ['dev2', 'dev2.school.nl', '10.9.0.1'],
    ]);
    // Its first entry is the single server of the env file.
    expect(config.agentLinks[0]?.address).toBe(controlPlaneEnv.values.AGENT_ADDRESS);
    expect(config.agentLinks[0]?.siteDomain).toBe(controlPlaneEnv.values.SITE_DOMAIN);
  });
});

/** Caddy's JSON for a Caddyfile (`caddy adapt`). */
function adaptCaddyfile(file: string, env: NodeJS.ProcessEnv): { admin?: { listen?: string }; apps: { http: { servers: Record<string, { listen: string[] }> } } } {
  const result = spawnSync('caddy', ['adapt', '--config', file, '--adapter', 'caddyfile'], { encoding: 'utf8', env, timeout: 30_000 });
  if (result.status !== 0) throw new Error(`caddy adapt failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as ReturnType<typeof adaptCaddyfile>;
}

/** A plain HTTP(S) GET with a Host header (and SNI), as a browser asking for `host` would. */
function get(
  scheme: 'http' | 'https',
  port: number,
  host: string,
  pathname = '/',
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path: pathname, headers: { Host: host }, timeout: 5_000 };
    const onResponse = (response: http.IncomingMessage): void => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    };
    const request =
      scheme === 'https' ? https.get({ ...options, servername: host, rejectUnauthorized: false }, onResponse) : http.get(options, onResponse);
    request.on('timeout', () => request.destroy(new Error(`GET ${scheme}://${host}${pathname} timed out`)));
    request.on('error', reject);
  });
}

/** The DNS names of the certificate `port` presents for `host` (SNI). */
function certificateNames(port: number, host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: host, rejectUnauthorized: false }, () => {
      const names = (socket.getPeerCertificate().subjectaltname ?? '').split(', ').filter((entry) => entry.startsWith('DNS:')).map((entry) => entry.slice(4));
      socket.end();
      resolve(names);
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error(`TLS to ${host} timed out`)));
    socket.on('error', reject);
  });
}

/** A loopback HTTP server that answers `name` and echoes the forwarded-protocol header. */
async function startEcho(name: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ name, path: request.url, forwardedProto: request.headers['x-forwarded-proto'] ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('Caddyfile', () => {
  let workDir: string;
  let caddyEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-caddyfile-'));
    caddyEnv = { ...process.env, HOME: workDir, XDG_CONFIG_HOME: path.join(workDir, 'config'), XDG_DATA_HOME: path.join(workDir, 'data') };
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  /**
   * The Caddyfile made safe to run here: loopback only, test ports, certificates from Caddy's own
   * local CA (no ACME, nothing leaves the machine), upstreams replaced by test servers.
   */
  async function testCopy(ports: { http: number; https: number; admin: number; controlPlane: number; soketi: number }): Promise<string> {
    const original = read('caddy/Caddyfile');
    const global = ['default_bind 127.0.0.1', 'local_certs', 'skip_install_trust', `http_port ${ports.http}`, `https_port ${ports.https}`];
    const copy = original
      .replace(/^\{$/m, `{\n${global.map((line) => `\t${line}`).join('\n')}`)
      .replace(/^\tadmin 127\.0\.0\.1:2019$/m, `\tadmin 127.0.0.1:${ports.admin}`)
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.controlPlane}`)
      .replaceAll('127.0.0.1:6001', `127.0.0.1:${ports.soketi}`)
      // phpMyAdmin's files: a folder of the test's (no phpMyAdmin or PHP-FPM on this machine).
      .replace('root * /usr/share/phpmyadmin', `root * ${path.join(workDir, 'phpmyadmin')}`);
    expect(copy).toContain(`admin 127.0.0.1:${ports.admin}`);
    mkdirSync(path.join(workDir, 'phpmyadmin', 'setup'), { recursive: true });
    writeFileSync(path.join(workDir, 'phpmyadmin', 'robots.txt'), 'phpMyAdmin hier\n');
    writeFileSync(path.join(workDir, 'phpmyadmin', 'setup', 'index.html'), 'intern\n');
    const file = path.join(workDir, 'Caddyfile');
    await writeFile(file, copy);
    return file;
  }

  it('is accepted by caddy validate (with local certificates)', async () => {
    const file = await testCopy({ http: 18_080, https: 18_443, admin: 12_019, controlPlane: 18_081, soketi: 16_001 });
    const result = spawnSync('caddy', ['validate', '--config', file, '--adapter', 'caddyfile'], { encoding: 'utf8', env: caddyEnv, timeout: 60_000 });
    expect(result.error, 'caddy must be installed (Debian: caddy)').toBeUndefined();
    expect(result.status, result.stderr).toBe(0);
  });

  it('names its :80 server and admin address as the agent env file says', () => {
    const config = adaptCaddyfile(path.join(deployDir, 'caddy/Caddyfile'), caddyEnv);
    const onPort80 = Object.entries(config.apps.http.servers).filter(([, server]) => server.listen.includes(':80'));
    expect(onPort80.map(([name]) => name)).toEqual([agentEnv.values.AGENT_CADDY_SERVER]);
    expect(agentEnv.values.AGENT_CADDY_LISTEN).toBe(':80');
    expect(`http://${config.admin?.listen ?? ''}`).toBe(agentEnv.values.AGENT_CADDY_ADMIN);
    expect(agentEnv.values.AGENT_SCREENSHOT_PROXY).toBe('127.0.0.1:80');
  });

  describe('running', () => {
    let caddy: ChildProcess | undefined;
    const tail = new LineTail();
    let ports: { http: number; https: number; admin: number; controlPlane: number; soketi: number };
    let echoes: Array<{ port: number; close(): Promise<void> }> = [];
    let driver: CaddyProxyDriver;

    beforeAll(async () => {
      const controlPlane = await startEcho('control-plane');
      const soketi = await startEcho('soketi');
      const site = await startEcho('mijn-site');
      echoes = [controlPlane, soketi, site];
      ports = {
        http: await findFreePort(),
        https: await findFreePort(),
        admin: await findFreePort(),
        controlPlane: controlPlane.port,
        soketi: soketi.port,
      };
      const file = await testCopy(ports);
      const serverOn80 = Object.entries(adaptCaddyfile(file, caddyEnv).apps.http.servers).find(([, server]) =>
        server.listen.includes(`127.0.0.1:${ports.http}`),
      )?.[0];
      if (!serverOn80) throw new Error('no server on the HTTP port');
      const child = spawn('caddy', ['run', '--config', file, '--adapter', 'caddyfile'], { cwd: workDir, env: caddyEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      caddy = child;
      if (child.stdout) forEachLine(child.stdout, (line) => tail.push(line));
      if (child.stderr) forEachLine(child.stderr, (line) => tail.push(line));
      await waitForHttp(`http://127.0.0.1:${ports.admin}/config/`, {
        timeoutMs: 20_000,
        giveUpIf: () => (isRunning(child) ? undefined : `caddy exited:\n${tail.toString()}`),
      });
      driver = new CaddyProxyDriver({ adminUrl: `http://127.0.0.1:${ports.admin}`, server: serverOn80, listen: ':80' });
      await driver.upsertRoute({ domain: 'mijn-site.dev.school.nl', upstream: `127.0.0.1:${site.port}`, projectId: 7 });
    }, 60_000);

    afterAll(async () => {
      if (caddy) await stopChild(caddy, 5_000);
      await Promise.all(echoes.map((echo) => echo.close()));
    });

    it('serves an agent-routed student site on the shared :80 server', async () => {
      const answer = await get('http', ports.http, 'mijn-site.dev.school.nl');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ name: 'mijn-site' });
      expect(await driver.listRoutes()).toEqual([{ domain: 'mijn-site.dev.school.nl', upstream: expect.stringMatching(/^127\.0\.0\.1:\d+$/), projectId: 7 }]);
    });

    it('answers 404 for a student domain without a project, and redirects the control plane to HTTPS', async () => {
      const unknown = await get('http', ports.http, 'niemand.dev.school.nl');
      expect(unknown).toMatchObject({ status: 404, body: CATCH_ALL_BODY });
      const redirect = await get('http', ports.http, 'devplein.school.nl', '/dockers?x=1');
      expect(redirect.status).toBe(301);
      expect(redirect.headers.location).toBe('https://devplein.school.nl/dockers?x=1');
    });

    it('serves the control plane over HTTPS with X-Forwarded-Proto, the soketi websocket under /app; hides the soketi HTTP API, /metrics and phpMyAdmin internals', async () => {
      let home: Awaited<ReturnType<typeof get>> | undefined;
      // The local CA issues the certificate in the background right after start.
      await waitFor(
        async () => {
          home = await get('https', ports.https, 'devplein.school.nl', '/dockers');
          return home.status === 200;
        },
        { description: 'HTTPS on devplein.school.nl', timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(JSON.parse(home?.body ?? '{}')).toEqual({ name: 'control-plane', path: '/dockers', forwardedProto: 'https' });
      expect(home?.headers['strict-transport-security']).toMatch(/max-age=/);
      expect(JSON.parse((await get('https', ports.https, 'devplein.school.nl', '/app/devplein-key')).body)).toMatchObject({ name: 'soketi' });
      expect((await get('https', ports.https, 'devplein.school.nl', '/apps/devplein/events')).status).toBe(404);
      expect((await get('https', ports.https, 'devplein.school.nl', '/metrics')).status).toBe(404);
    }, 40_000);

    it('serves phpMyAdmin on a host name and certificate of its own, never under the control plane\'s origin', async () => {
      let robots: Awaited<ReturnType<typeof get>> | undefined;
      await waitFor(
        async () => {
          robots = await get('https', ports.https, 'phpmyadmin.school.nl', '/robots.txt').catch(() => undefined);
          return robots?.status === 200;
        },
        { description: 'HTTPS on phpmyadmin.school.nl', timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(robots?.body).toBe('phpMyAdmin hier\n');
      expect(robots?.headers['referrer-policy']).toBe('same-origin');
      expect(await certificateNames(ports.https, 'phpmyadmin.school.nl')).toEqual(['phpmyadmin.school.nl']);
      expect(await certificateNames(ports.https, 'devplein.school.nl')).toEqual(['devplein.school.nl']);
      expect((await get('https', ports.https, 'phpmyadmin.school.nl', '/setup/index.html')).status).toBe(404);
      // On devplein's origin phpMyAdmin's paths are no phpMyAdmin: old links go to its own host name.
      for (const pathname of ['/phpmyadmin', '/phpmyadmin/', '/phpmyadmin/index.php', '/phpmyadmin/robots.txt']) {
        const old = await get('https', ports.https, 'devplein.school.nl', pathname);
        expect([old.status, old.headers.location], pathname).toEqual([302, 'https://phpmyadmin.school.nl/']);
      }
      const plain = await get('http', ports.http, 'phpmyadmin.school.nl', '/index.php?db=x');
      expect([plain.status, plain.headers.location]).toEqual([301, 'https://phpmyadmin.school.nl/index.php?db=x']);
    }, 40_000);
  });
});
