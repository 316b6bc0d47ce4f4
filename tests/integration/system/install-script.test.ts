/**
 * deploy/install.sh installs a server role from an unpacked release bundle. Run here, as root,
 * into throwaway roots (temp folders holding the host's passwd, group, shadow and gshadow without
 * devplein's users — enough for useradd --prefix — plus bash and systemd's own units for
 * `systemd-analyze verify --root`), from a small bundle with the release's layout: the real
 * bin/devplein and deploy/ (install.sh in deploy/ and at the root, as the release will have it),
 * a VERSION, no servers. Checked: the users (the agent's, the screenshot browser's, the git
 * runner's), the bundle with its current symlink, env files with
 * fresh secrets the config schemas accept (modes, groups), certificates from one CA, the units as
 * systemd reads them, `apt-get -s` naming the role's packages, that a second run changes no file
 * and says "ongewijzigd", and that two installs share no secret. Starting under systemd is not
 * tested here (the test machines have no systemd).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageScriptBundle } from '../../support/stacks/install-roots.ts';
import { loadConfig as loadControlPlaneConfig } from '../../../control-plane/src/config.ts';
import { loadConfig as loadAgentConfig } from '../../../host-agent/src/config.ts';
import { soketiCheck } from '../../../control-plane/src/cli/config-check-soketi.ts';
import { credentialsDirOf, unitEnvironment } from '../../../server-kit/src/systemd-files.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');
const version = '0.1.0';
const roles = {
  'control-plane': {
    packages: ['postgresql', 'caddy', 'openssl', 'openssh-client', 'curl', 'ca-certificates'],
    units: ['devplein-soketi.service', 'devplein-control-plane.service'],
    users: ['devplein', 'devplein-soketi'],
  },
  agent: {
    packages: ['docker.io', 'caddy', 'mariadb-server', 'chromium', 'git', 'openssh-client', 'wireguard-tools', 'wireguard-go', 'iptables', 'openssl', 'curl', 'ca-certificates'],
    units: ['devplein-browser.service', 'devplein-git.service', 'devplein-agent.service'],
    users: ['devplein-agent', 'devplein-browser', 'devplein-git'],
  },
} as const;
type Role = keyof typeof roles;
/** What a run prints for a step that wrote something. */
const changeWords = /\b(aangemaakt|geschreven|gekopieerd|bijgewerkt|geïnstalleerd)\b/;

let work: string;
let bundle: string;
/** Two throwaway roots, each with both roles installed. */
let first: string;
let second: string;
const transcripts: Record<string, string> = {};
/** The second root gets the school's own names. */
const names = ['--domain', 'devplein.dev.mijnschool.nl', '--site-domain', 'sites.mijnschool.nl', '--db-admin-host', 'db.mijnschool.nl', '--vpn-host', 'vpn.mijnschool.nl', '--email', 'it@mijnschool.nl'];
const exampleNames = /(devplein|dev|vpn|phpmyadmin)\.school\.nl|beheer@school\.nl/;

async function makeRoot(name: string): Promise<string> {
  const root = path.join(work, name);
  await mkdir(path.join(root, 'etc'), { recursive: true });
  // The host's accounts, without devplein's own (this machine's tests may have made those).
  for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
    const lines = readFileSync(`/etc/${file}`, 'utf8').split('\n');
    await writeFile(path.join(root, 'etc', file), lines.filter((line) => !line.startsWith('devplein')).join('\n'), { mode: statSync(`/etc/${file}`).mode & 0o777 });
  }
  // What systemd-analyze verify --root looks for: its own units (sysinit.target, …) and the
  // programs the units name besides the bundle's (bash for the readiness checks).
  cpSync('/usr/lib/systemd/system', path.join(root, 'usr/lib/systemd/system'), { recursive: true });
  await mkdir(path.join(root, 'usr/bin'), { recursive: true });
  await copyFile('/usr/bin/bash', path.join(root, 'usr/bin/bash'));
  await symlink('usr/bin', path.join(root, 'bin'));
  return root;
}

async function install(script: string, role: Role, root: string, packages: 'simulate' | 'skip', options: string[] = []): Promise<string> {
  // --unsigned: this bundle has no tarball; the signature check is release-signature.test.ts's.
  const { stdout } = await run(script, [role, '--root', root, '--no-start', `--packages=${packages}`, '--unsigned', ...options], {
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    timeout: 60_000,
  });
  return stdout;
}

/** Every entry under a root: its type, mode, owner and content (file hash or symlink target). */
function snapshot(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const relative of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(root, relative);
    const stat = lstatSync(full);
    const content = stat.isSymbolicLink() ? readlinkSync(full) : stat.isFile() ? createHash('sha256').update(readFileSync(full)).digest('hex') : '';
    entries.set(relative, `${stat.mode.toString(8)} ${stat.uid}:${stat.gid} ${content}`);
  }
  return entries;
}

/** KEY=value lines of an env file (one pair of quotes removed), as systemd reads them. */
function envFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) values[match[1]] = (match[2] ?? '').replace(/^"(.*)"$/, '$1');
  }
  return values;
}

function accountLine(root: string, file: 'passwd' | 'group', name: string): string[] | undefined {
  return readFileSync(path.join(root, 'etc', file), 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === name);
}

function gid(root: string, group: string): number {
  return Number(accountLine(root, 'group', group)?.[2]);
}

/** Mode (octal), owner uid and group name of a file inside a root. */
function ownership(root: string, file: string): string {
  const stat = statSync(path.join(root, file));
  const group = readFileSync(path.join(root, 'etc/group'), 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => Number(fields[2]) === stat.gid)?.[0];
  return `${(stat.mode & 0o7777).toString(8)} ${stat.uid}:${group}`;
}

describe('install.sh in a throwaway root', () => {
  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('install.sh runs as root (useradd, chown): run this test as root');
    work = await mkdtemp(path.join(os.tmpdir(), 'devplein-install-'));
    bundle = path.join(work, `devplein-${version}`);
    await stageScriptBundle(bundle, version);

    first = await makeRoot('first');
    second = await makeRoot('second');
    // From deploy/ for the control plane, from the bundle's root for the agent.
    transcripts['control-plane'] = await install(path.join(bundle, 'deploy/install.sh'), 'control-plane', first, 'simulate');
    transcripts.agent = await install(path.join(bundle, 'install.sh'), 'agent', first, 'simulate');
    transcripts.secondControlPlane = await install(path.join(bundle, 'install.sh'), 'control-plane', second, 'skip', names);
    transcripts.secondAgent = await install(path.join(bundle, 'install.sh'), 'agent', second, 'skip', names);
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('is shellcheck-clean, with upgrade.sh, the scripts of devplein upgrade and release-signers, and the libraries they source', async () => {
    const scripts = ['deploy/install.sh', 'deploy/upgrade.sh', 'deploy/install-common.sh', 'deploy/install-database.sh', 'deploy/release-trust.sh', 'deploy/verified-upgrade.sh', 'deploy/release-signers.sh'].map((script) => path.join(repo, script));
    const result = await run('shellcheck', ['-x', ...scripts]).catch((error: { stdout?: string; code?: number }) => error);
    expect(result.stdout).toBe('');
  });

  it.each(Object.keys(roles) as Role[])('%s: apt-get -s names every Debian package of the role', (role) => {
    const transcript = transcripts[role] ?? '';
    expect(transcript).toContain('gesimuleerd');
    for (const name of roles[role].packages) {
      expect(transcript, name).toMatch(new RegExp(`^\\s+(Inst ${name.replace('.', '\\.')} |${name.replace('.', '\\.')} is already the newest version)`, 'm'));
    }
  });

  it('creates the system users, with a group of their own, no login, the agent in docker', () => {
    for (const name of [...roles['control-plane'].users, ...roles.agent.users]) {
      const fields = accountLine(first, 'passwd', name);
      expect(fields, name).toBeDefined();
      expect(fields?.[6]).toBe('/usr/sbin/nologin');
      expect(Number(fields?.[3])).toBe(gid(first, name));
      expect(Number(fields?.[2])).toBeLessThan(1000);
    }
    expect(accountLine(first, 'passwd', 'devplein')?.[5]).toBe('/var/lib/devplein');
    expect(accountLine(first, 'passwd', 'devplein-agent')?.[5]).toBe('/var/lib/devplein-agent');
    expect(accountLine(first, 'group', 'docker')?.[3]?.split(',')).toContain('devplein-agent');
    expect(accountLine(first, 'group', 'docker')?.[3]?.split(',')).not.toContain('devplein-browser');
    expect(accountLine(first, 'group', 'docker')?.[3]?.split(',')).not.toContain('devplein-git');
    // No home: git's HOME is in the git runner's state folder (/var/lib/devplein-git/git).
    expect(accountLine(first, 'passwd', 'devplein-git')?.[5]).toBe('/nonexistent');
    expect(accountLine(first, 'passwd', 'devplein-browser')?.[5]).toBe('/nonexistent');
  });

  it('copies the bundle to /opt/devplein/releases/<version> with a current symlink and devplein on the PATH', () => {
    expect(readlinkSync(path.join(first, 'opt/devplein/current'))).toBe(`releases/${version}`);
    expect(readFileSync(path.join(first, 'opt/devplein/current/VERSION'), 'utf8')).toBe(`${version}\n`);
    expect(ownership(first, 'opt/devplein/current/bin/devplein')).toBe('755 0:root');
    expect(readFileSync(path.join(first, 'opt/devplein/current/deploy/install.sh'), 'utf8')).toBe(readFileSync(path.join(repo, 'deploy/install.sh'), 'utf8'));
    expect(readlinkSync(path.join(first, 'usr/local/bin/devplein'))).toBe('/opt/devplein/current/bin/devplein');
  });

  it('writes the control plane env file with fresh secrets the config accepts; only the school provider is left', () => {
    expect(ownership(first, 'etc/devplein/control-plane.env')).toBe('640 0:devplein');
    const env = envFile(path.join(first, 'etc/devplein/control-plane.env'));
    const template = envFile(path.join(repo, 'deploy/systemd/devplein-control-plane.env'));
    expect(env.SESSION_SECRET).toMatch(/^[A-Za-z0-9+/]{64}$/);
    expect(Buffer.from(env.ENCRYPTION_KEY ?? '', 'base64')).toHaveLength(32);
    expect(env.REALTIME_SECRET).toMatch(/^[0-9a-f]{48}$/);
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/devplein:[0-9a-f]{48}@127\.0\.0\.1:5432\/devplein$/);
    const placeholders = Object.keys(env).filter((key) => env[key]?.includes('CHANGE_ME'));
    expect(placeholders.sort()).toEqual(['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ISSUER']);
    // Everything else as shipped.
    const changed = Object.keys(template).filter((key) => template[key] !== env[key]);
    expect(changed.sort()).toEqual(['DATABASE_URL', 'ENCRYPTION_KEY', 'REALTIME_SECRET', 'SESSION_SECRET']);
    // With the provider filled in, the control plane's own config check passes.
    const config = loadControlPlaneConfig({ ...env, OIDC_ISSUER: 'https://login.school.nl', OIDC_CLIENT_ID: 'devplein', OIDC_CLIENT_SECRET: 'k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b' });
    expect(config.WEB_DIST).toBe('/opt/devplein/current/web/dist');

    expect(ownership(first, 'etc/devplein/soketi.env')).toBe('640 0:devplein-soketi');
    const soketi = envFile(path.join(first, 'etc/devplein/soketi.env'));
    expect(soketi).toEqual({ SOKETI_DEFAULT_APP_ID: env.REALTIME_APP_ID, SOKETI_DEFAULT_APP_KEY: env.REALTIME_KEY, SOKETI_DEFAULT_APP_SECRET: env.REALTIME_SECRET });
  });

  it("writes the agent env file, the browser secret and the git runner secret; the agent's config accepts it", () => {
    expect(ownership(first, 'etc/devplein/agent.env')).toBe('640 0:devplein-agent');
    const env = envFile(path.join(first, 'etc/devplein/agent.env'));
    expect(env.AGENT_MYSQL_URL).toMatch(/^mysql:\/\/devplein_agent:[0-9a-f]{48}@127\.0\.0\.1:3306\/$/);
    expect(Object.keys(env).filter((key) => env[key]?.includes('CHANGE_ME'))).toEqual([]);
    // As the agent gets it: its unit's Environment= (the git runner's secret file), then the env file.
    const unit = readFileSync(path.join(first, 'etc/systemd/system/devplein-agent.service'), 'utf8');
    const fromUnit = Object.fromEntries(
      [...unit.matchAll(/^Environment=(AGENT_[A-Z0-9_]+)=(\S+)$/gm)].map((match) => [match[1] ?? '', (match[2] ?? '').replace('%d', '/run/credentials/devplein-agent.service')]),
    );
    const config = loadAgentConfig({ ...fromUnit, ...env });
    expect(config.mysqlUrl).toBe(env.AGENT_MYSQL_URL);
    expect(config.deploy.runner?.secretFile).toBe('/run/credentials/devplein-agent.service/git-runner-secret');
    expect(ownership(first, 'etc/devplein/credentials')).toBe('700 0:root');
    for (const secret of ['browser-secret', 'git-runner-secret']) {
      expect(ownership(first, `etc/devplein/credentials/${secret}`), secret).toBe('600 0:root');
      expect(readFileSync(path.join(first, `etc/devplein/credentials/${secret}`), 'utf8'), secret).toMatch(/^[0-9a-f]{64}\n$/);
    }
    expect(readFileSync(path.join(first, 'etc/devplein/credentials/git-runner-secret'), 'utf8')).not.toBe(readFileSync(path.join(first, 'etc/devplein/credentials/browser-secret'), 'utf8'));
  });

  it('makes the certificates of the agent link from one CA, each key readable by its service only', async () => {
    expect(ownership(first, 'etc/devplein/ca')).toBe('700 0:root');
    expect(ownership(first, 'etc/devplein/control-plane/control-plane-key.pem')).toBe('640 0:devplein');
    expect(ownership(first, 'etc/devplein/agent/agent-key.pem')).toBe('640 0:devplein-agent');
    expect(ownership(first, 'etc/devplein/agent')).toBe('750 0:devplein-agent');
    const ca = readFileSync(path.join(first, 'etc/devplein/agent/ca.pem'), 'utf8');
    expect(readFileSync(path.join(first, 'etc/devplein/control-plane/ca.pem'), 'utf8')).toBe(ca);
    for (const leaf of ['agent/agent.pem', 'control-plane/control-plane.pem']) {
      const { stdout } = await run('openssl', ['verify', '-CAfile', path.join(first, 'etc/devplein/agent/ca.pem'), path.join(first, 'etc/devplein', leaf)]);
      expect(stdout).toContain(': OK');
    }
  });

  it.each([...roles['control-plane'].units, ...roles.agent.units])('installs %s, running the bundle, and systemd-analyze verify --root accepts it', async (unit) => {
    const installed = path.join('etc/systemd/system', unit);
    expect(readFileSync(path.join(first, installed), 'utf8')).toBe(readFileSync(path.join(repo, 'deploy/systemd', unit), 'utf8'));
    expect(ownership(first, installed)).toBe('644 0:root');
    expect(readFileSync(path.join(first, installed), 'utf8')).toMatch(/^ExecStart=\/opt\/devplein\/current\/bin\/devplein [a-z-]+$/m);
    // The files the unit reads at start, which systemd-analyze does not check: install.sh wrote them.
    const text = readFileSync(path.join(first, installed), 'utf8');
    const read = [...text.matchAll(/^EnvironmentFile=(\S+)$/gm), ...text.matchAll(/^LoadCredential=[^:]+:(\S+)$/gm)].map((match) => match[1] ?? '');
    expect(read.length).toBeGreaterThan(0);
    for (const file of read) expect(statSync(path.join(first, file)).isFile(), file).toBe(true);
    const result = await run('systemd-analyze', ['verify', '--man=no', `--root=${first}`, unit]).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    expect({ code: 'code' in result ? result.code : 0, aboutUnit: output.split('\n').filter((line) => line.includes(unit)) }).toEqual({ code: 0, aboutUnit: [] });
  });

  it('sets up the nightly backup: a key for root only, backup.env naming both roles, the folder; systemd-analyze verify --root accepts the service and its timer', async () => {
    expect(ownership(first, 'etc/devplein/backup.key')).toBe('400 0:root');
    expect(Buffer.from(readFileSync(path.join(first, 'etc/devplein/backup.key'), 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(ownership(first, 'etc/devplein/backup.env')).toBe('600 0:root');
    // control-plane first, then agent on the same machine: both are backed up.
    expect(envFile(path.join(first, 'etc/devplein/backup.env'))).toEqual({ BACKUP_ROLE: 'control-plane agent', BACKUP_DIR: '/var/backups/devplein', BACKUP_KEEP: '14', BACKUP_KEY_FILE: '/etc/devplein/backup.key' });
    expect(envFile(path.join(second, 'etc/devplein/backup.env')).BACKUP_ROLE).toBe('control-plane agent');
    expect(ownership(first, 'var/backups/devplein')).toBe('700 0:root');
    expect(transcripts['control-plane']).toContain('/etc/devplein/backup.key naar een veilige plek');
    for (const unit of ['devplein-backup.service', 'devplein-backup.timer']) {
      const installed = path.join('etc/systemd/system', unit);
      expect(readFileSync(path.join(first, installed), 'utf8')).toBe(readFileSync(path.join(repo, 'deploy/systemd', unit), 'utf8'));
      expect(ownership(first, installed)).toBe('644 0:root');
      const result = await run('systemd-analyze', ['verify', '--man=no', `--root=${first}`, unit]).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
      expect({ code: 'code' in result ? result.code : 0, aboutUnit: output.split('\n').filter((line) => line.includes('devplein-backup')) }, unit).toEqual({ code: 0, aboutUnit: [] });
    }
    const service = readFileSync(path.join(first, 'etc/systemd/system/devplein-backup.service'), 'utf8');
    expect(service).toMatch(/^ExecStart=\/opt\/devplein\/current\/bin\/devplein backup$/m);
    expect(service).toMatch(/^EnvironmentFile=\/etc\/devplein\/backup\.env$/m);
    expect(service).toMatch(/^ReadWritePaths=\/var\/backups\/devplein$/m);
    const timer = readFileSync(path.join(first, 'etc/systemd/system/devplein-backup.timer'), 'utf8');
    expect(timer).toMatch(/^Persistent=true$/m);
    expect(timer).toMatch(/^OnCalendar=\*-\*-\* 03:15:00$/m);
  });

  it('sets up the agent certificate renewal (issue 21): its service and nightly timer, accepted by systemd-analyze verify --root', async () => {
    for (const unit of ['devplein-agent-renew.service', 'devplein-agent-renew.timer']) {
      const installed = path.join('etc/systemd/system', unit);
      expect(readFileSync(path.join(first, installed), 'utf8')).toBe(readFileSync(path.join(repo, 'deploy/systemd', unit), 'utf8'));
      expect(ownership(first, installed)).toBe('644 0:root');
      const result = await run('systemd-analyze', ['verify', '--man=no', `--root=${first}`, unit]).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
      expect({ code: 'code' in result ? result.code : 0, aboutUnit: output.split('\n').filter((line) => line.includes('devplein-agent-renew')) }, unit).toEqual({ code: 0, aboutUnit: [] });
    }
    expect(readFileSync(path.join(first, 'etc/systemd/system/devplein-agent-renew.service'), 'utf8')).toMatch(/^ExecStart=\/opt\/devplein\/current\/bin\/devplein agent renew --restart$/m);
  });

  it('keeps soketi on loopback with the env file install.sh wrote', () => {
    const unit = readFileSync(path.join(first, 'etc/systemd/system/devplein-soketi.service'), 'utf8');
    expect(unit).toContain('EnvironmentFile=/etc/devplein/soketi.env');
    expect(unit).toContain('Environment=SOKETI_HOST=127.0.0.1 SOKETI_PORT=6001');
    expect(unit).toContain('SOKETI_CLUSTER_UNICAST_ADDRESSES=127.0.0.1');
    // What the unit hands soketi passes `devplein config check soketi` (its ExecStartPre).
    const environment = { ...unitEnvironment(unit, credentialsDirOf('devplein-soketi.service')), ...envFile(path.join(first, 'etc/devplein/soketi.env')) };
    expect(soketiCheck.check(environment)).toEqual([]);
  });

  it("installs the bundle's Caddyfile and MariaDB's listen address", () => {
    expect(readFileSync(path.join(first, 'etc/caddy/Caddyfile'), 'utf8')).toBe(readFileSync(path.join(repo, 'deploy/caddy/Caddyfile'), 'utf8'));
    expect(readFileSync(path.join(first, 'etc/mysql/mariadb.conf.d/60-devplein.cnf'), 'utf8')).toMatch(/^bind-address = 0\.0\.0\.0$/m);
  });

  it('says what is left: the provider, the first admin, DNS, starting', () => {
    const transcript = transcripts['control-plane'] ?? '';
    expect(transcript).toContain('OIDC_ISSUER, OIDC_CLIENT_ID en OIDC_CLIENT_SECRET');
    expect(transcript).toContain('devplein admin create --email');
    expect(transcript).toContain('DNS:');
    expect(transcript).toContain('niet gestart (--no-start)');
    expect(transcript).toContain('journald');
  });

  it('a second run changes no file and says so for every step', async () => {
    const before = snapshot(first);
    const again = {
      'control-plane': await install(path.join(bundle, 'install.sh'), 'control-plane', first, 'skip'),
      agent: await install(path.join(bundle, 'deploy/install.sh'), 'agent', first, 'skip'),
    };
    const after = snapshot(first);
    const differences = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
    expect(differences).toEqual([]);
    for (const [role, transcript] of Object.entries(again)) {
      expect(transcript, role).not.toMatch(changeWords);
      expect(transcript.match(/ongewijzigd/g)?.length, role).toBeGreaterThanOrEqual(10);
    }
    // The first run did write, in the same words the second run must not use.
    expect(transcripts['control-plane']).toMatch(changeWords);
  }, 60_000);

  it('two installs share no secret', () => {
    const files = [
      'etc/devplein/control-plane.env',
      'etc/devplein/soketi.env',
      'etc/devplein/agent.env',
      'etc/devplein/credentials/browser-secret',
      'etc/devplein/credentials/git-runner-secret',
      'etc/devplein/backup.key',
      'etc/devplein/ca/ca-key.pem',
      'etc/devplein/agent/agent-key.pem',
      'etc/devplein/control-plane/control-plane-key.pem',
    ];
    for (const file of files) expect(readFileSync(path.join(second, file), 'utf8'), file).not.toBe(readFileSync(path.join(first, file), 'utf8'));
    const a = envFile(path.join(first, 'etc/devplein/control-plane.env'));
    const b = envFile(path.join(second, 'etc/devplein/control-plane.env'));
    for (const key of ['SESSION_SECRET', 'ENCRYPTION_KEY', 'REALTIME_SECRET', 'DATABASE_URL']) expect(b[key], key).not.toBe(a[key]);
  });

  it("puts the school's names in the env files and the Caddyfile, which Caddy still reads", async () => {
    const controlPlane = envFile(path.join(second, 'etc/devplein/control-plane.env'));
    const agent = envFile(path.join(second, 'etc/devplein/agent.env'));
    expect([controlPlane.APP_URL, controlPlane.REALTIME_PUBLIC_HOST, controlPlane.SITE_DOMAIN]).toEqual(['https://devplein.dev.mijnschool.nl', 'devplein.dev.mijnschool.nl', 'sites.mijnschool.nl']);
    expect([agent.AGENT_SITE_DOMAIN, agent.AGENT_WG_ENDPOINT, agent.AGENT_SSH_HOST]).toEqual(['sites.mijnschool.nl', 'vpn.mijnschool.nl:51820', 'sites.mijnschool.nl']);
    const caddyfile = readFileSync(path.join(second, 'etc/caddy/Caddyfile'), 'utf8');
    expect(caddyfile).toContain('\temail it@mijnschool.nl\n');
    expect(caddyfile).toContain('\ndevplein.dev.mijnschool.nl {\n');
    expect(caddyfile).toContain('\nhttp://*.sites.mijnschool.nl {\n');
    // phpMyAdmin on a host name (and so a certificate) of its own, which the env file links to.
    expect(caddyfile).toContain('\ndb.mijnschool.nl {\n');
    expect(caddyfile).not.toContain('handle /phpmyadmin');
    expect(controlPlane.DB_ADMIN_URL).toBe('https://db.mijnschool.nl/');
    for (const file of ['etc/caddy/Caddyfile', 'etc/devplein/control-plane.env', 'etc/devplein/agent.env']) {
      expect(readFileSync(path.join(second, file), 'utf8'), file).not.toMatch(exampleNames);
    }
    const adapted = await run('caddy', ['adapt', '--config', path.join(second, 'etc/caddy/Caddyfile')]);
    const servers = (JSON.parse(adapted.stdout) as { apps: { http: { servers: Record<string, { listen: string[] }> } } }).apps.http.servers;
    expect(servers.srv1?.listen).toEqual([':80']);
    // Left to do only where the example names stayed.
    expect(transcripts['control-plane']).toContain('noemen nog voorbeeldnamen');
    expect(`${transcripts.secondControlPlane ?? ''}${transcripts.secondAgent ?? ''}`).not.toContain('voorbeeldnamen');
    expect(transcripts.secondControlPlane).toContain('DNS: devplein.dev.mijnschool.nl en db.mijnschool.nl (phpMyAdmin, een eigen naam en certificaat) naar deze server');
    expect(transcripts.secondAgent).toContain('DNS: *.sites.mijnschool.nl (wildcard) en vpn.mijnschool.nl (VPN) naar deze server');
    // A later run without the options names what the env files say, not the defaults.
    expect(await install(path.join(bundle, 'install.sh'), 'agent', second, 'skip')).toContain('DNS: *.sites.mijnschool.nl (wildcard) en vpn.mijnschool.nl (VPN)');
  });

  it("an agent on a machine of its own keeps the certificates copied from the control plane's, fixing their owner", async () => {
    const machine = await makeRoot('agent-machine');
    const certDir = path.join(machine, 'etc/devplein/agent');
    await mkdir(certDir, { recursive: true, mode: 0o700 });
    // As a sysadmin copies them over: root's, key 0600, no group for the agent yet.
    for (const file of ['ca.pem', 'agent.pem', 'agent-key.pem']) {
      await copyFile(path.join(first, 'etc/devplein/ca', file), path.join(certDir, file));
      await chmod(path.join(certDir, file), 0o600);
    }
    const transcript = await install(path.join(bundle, 'install.sh'), 'agent', machine, 'skip');
    expect(transcript).toMatch(/\/etc\/devplein\/agent\s+bijgewerkt/);
    for (const file of ['ca.pem', 'agent.pem', 'agent-key.pem']) {
      expect(readFileSync(path.join(certDir, file), 'utf8'), file).toBe(readFileSync(path.join(first, 'etc/devplein/ca', file), 'utf8'));
    }
    expect(ownership(machine, 'etc/devplein/agent')).toBe('750 0:devplein-agent');
    expect(ownership(machine, 'etc/devplein/agent/agent-key.pem')).toBe('640 0:devplein-agent');
    expect(ownership(machine, 'etc/devplein/agent/agent.pem')).toBe('644 0:root');
    expect(() => statSync(path.join(machine, 'etc/devplein/ca')), 'no CA of its own').toThrow();
    expect(await install(path.join(bundle, 'install.sh'), 'agent', machine, 'skip')).toMatch(/\/etc\/devplein\/agent\s+ongewijzigd/);
  });

  it('upgrade.sh makes the git runner\'s user and secret on an agent installed before them (before it stops anything), keeping what exists', async () => {
    const machine = await makeRoot('before-git-runner');
    await install(path.join(bundle, 'install.sh'), 'agent', machine, 'skip');
    // As a release from before the git runner left it: no devplein-git, no git-runner-secret.
    for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
      const full = path.join(machine, 'etc', file);
      writeFileSync(full, readFileSync(full, 'utf8').split('\n').filter((line) => !line.startsWith('devplein-git:')).join('\n'));
    }
    expect(accountLine(machine, 'passwd', 'devplein-git')).toBeUndefined();
    await rm(path.join(machine, 'etc/devplein/credentials/git-runner-secret'));
    const browserSecret = readFileSync(path.join(machine, 'etc/devplein/credentials/browser-secret'), 'utf8');
    // What upgrade.sh runs for the agent role (install-common.sh of the new bundle), with its settings.
    const helpers = () =>
      run('bash', ['-c', 'set -euo pipefail; R=$1; source "$2"; ensure_agent_helper_users; ensure_agent_helper_secrets', 'helpers', machine, path.join(bundle, 'deploy/install-common.sh')], {
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      });
    const { stdout } = await helpers();
    expect(stdout).toMatch(/gebruiker devplein-git +aangemaakt/);
    expect(stdout).toMatch(/\/etc\/devplein\/credentials\/git-runner-secret +geschreven/);
    expect(stdout).toMatch(/\/etc\/devplein\/credentials\/browser-secret +ongewijzigd/);
    expect(accountLine(machine, 'passwd', 'devplein-git')?.[6]).toBe('/usr/sbin/nologin');
    expect(ownership(machine, 'etc/devplein/credentials/git-runner-secret')).toBe('600 0:root');
    expect(readFileSync(path.join(machine, 'etc/devplein/credentials/git-runner-secret'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(readFileSync(path.join(machine, 'etc/devplein/credentials/browser-secret'), 'utf8')).toBe(browserSecret);
    expect((await helpers()).stdout).not.toMatch(changeWords);
    // upgrade.sh calls them for the agent role before its units stop.
    const upgrade = readFileSync(path.join(repo, 'deploy/upgrade.sh'), 'utf8');
    expect(upgrade.indexOf('ensure_agent_helper_secrets')).toBeGreaterThan(0);
    expect(upgrade.indexOf('ensure_agent_helper_secrets')).toBeLessThan(upgrade.indexOf('stop_role agent ||'));
  });

  it('refuses to install Debian packages into a root that is not /', async () => {
    const result = await run(path.join(bundle, 'install.sh'), ['agent', '--root', second, '--packages=install']).catch((error: { code?: number; stderr?: string }) => error);
    expect('code' in result ? result.code : 0).toBe(1);
    expect(result.stderr).toContain('--packages=install only on /');
  });
});

// The hash helper must see a change, or "changes no file" proves nothing.
it('snapshot notices a changed mode and a changed byte', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-snapshot-'));
  try {
    writeFileSync(path.join(dir, 'a'), 'x');
    const before = snapshot(dir);
    await chmod(path.join(dir, 'a'), 0o600);
    const afterMode = snapshot(dir);
    await writeFile(path.join(dir, 'a'), 'y');
    expect(afterMode.get('a')).not.toBe(before.get('a'));
    expect(snapshot(dir).get('a')).not.toBe(afterMode.get('a'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
