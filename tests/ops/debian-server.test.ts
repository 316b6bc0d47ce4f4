/**
 * A fresh Debian 12 server, as a school's sysadmin gets one: `install.sh agent` and then
 * `install.sh control-plane` (both roles on one server) from the real release bundle, with real
 * `apt-get install` of every package the roles name, then each unit's `ExecStart` run as its
 * `User` with its env file, and both `/healthz` answering.
 *
 * The server is a `debootstrap --variant=minbase bookworm` tree (cached in .tmp/debian/ after the
 * first run) entered with chroot inside namespaces of the test's own: a network namespace with
 * only loopback (so its PostgreSQL, MariaDB, soketi, agent and control plane take their standard
 * ports without meeting this machine's), a PID namespace (everything in it ends with the test)
 * and a mount namespace (its /proc, /dev, /sys and /run). The packages are fetched from Debian
 * beforehand on this machine's network (`apt-get install --download-only`, in the tree); apt-get
 * install inside then works offline, as it would from a mirror. A policy-rc.d keeps package
 * scripts from starting services, as on any chroot: the test starts PostgreSQL and MariaDB itself
 * after the first install (on a real server apt starts them), and install.sh's second run then
 * makes the database role, the migrations and the agent's MariaDB account; its third run changes
 * nothing. systemd does not run inside (nor on the test machines), so
 * tests/support/service-manager.sh stands in for it, with the units' capabilities (the namespace
 * is the test's own); there is no Docker engine inside, so the agent reports Docker as missing.
 *
 * In `npm run test:ops` (vitest.ops.config.ts), not in `npm test`: debootstrap and the packages
 * take minutes and 500 MB of downloads. Runs as root (debootstrap, chroot, unshare).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/ports.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const baseCache = path.join(repo, '.tmp/debian/bookworm-minbase.tar.gz');

let work: string;
/** The server's tree. */
let server: string;
let version: string;
/** unshare's child: the namespaces' first process (sleeps until the test ends). */
let namespaces: ChildProcess | undefined;
let namespacePid: number;
const transcripts: Record<string, string> = {};

/** The packages install.sh names for a role (its debian_packages line), so this test follows it. */
async function rolePackages(role: 'control-plane' | 'agent'): Promise<string[]> {
  const script = await readFile(path.join(repo, 'deploy/install.sh'), 'utf8');
  // The role's case branch, past the comment lines above its list.
  const list = new RegExp(`\\n  ${role}\\)\\n(?:\\s*#.*\\n)*\\s*debian_packages=\\(([^)]*)\\)`).exec(script)?.[1];
  if (!list) throw new Error(`no debian_packages for ${role} in deploy/install.sh`);
  return list.trim().split(/\s+/);
}

/** A bash script run as root inside the server (its namespaces, chroot, a clean environment). */
async function onServer(script: string, timeoutMs = 600_000): Promise<{ code: number; output: string }> {
  const args = ['--target', String(namespacePid), '--net', '--pid', '--mount', 'chroot', server, '/usr/bin/env', '-i', `PATH=${SYSTEM_PATH}`, 'LANG=C.UTF-8', 'HOME=/root', '/bin/bash', '-c', script];
  try {
    const { stdout, stderr } = await run('nsenter', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Fails with the output when the script does. */
async function onServerOk(script: string, timeoutMs?: number): Promise<string> {
  const result = await onServer(script, timeoutMs);
  if (result.code !== 0) throw new Error(`on the server, exit ${result.code}: ${script}\n${result.output}`);
  return result.output;
}

const install = (role: 'control-plane' | 'agent'): Promise<{ code: number; output: string }> => onServer(`cd /root/devplein-${version} && ./install.sh ${role} --unsigned`);

/**
 * The report lines (install-common.sh's `report`: what, padded to 52, then the status) whose
 * status says the step wrote something. Only the status counts: "ongewijzigd (alle al
 * geïnstalleerd)" wrote nothing.
 */
function changedSteps(output: string): string[] {
  return output.split('\n').filter((line) => /^ {3}(?:.{52}|\S{53,}) (aangemaakt|geschreven|gekopieerd|bijgewerkt|geïnstalleerd|uitgevoerd)\b/.test(line));
}

/** Hashes of every file install.sh writes, to compare runs. */
const writtenFiles = (): Promise<string> =>
  onServerOk('find /etc/devplein /etc/systemd/system /etc/caddy /etc/mysql/mariadb.conf.d /opt/devplein /usr/local/bin -xdev \\( -type f -o -type l \\) -printf "%p %m %u:%g %l\\n" | sort; find /etc/devplein /etc/caddy -type f -exec sha256sum {} + | sort');

/** A debootstrap'd Debian 12, from the cache when there. */
async function unpackBase(): Promise<void> {
  if (!existsSync(baseCache)) {
    if (!existsSync('/usr/sbin/debootstrap')) await run('apt-get', ['install', '-y', '-q', 'debootstrap'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
    const fresh = path.join(work, 'debootstrap');
    await run('debootstrap', ['--variant=minbase', 'bookworm', fresh, 'http://deb.debian.org/debian'], { timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
    await mkdir(path.dirname(baseCache), { recursive: true });
    await run('tar', ['-czf', `${baseCache}.partial`, '-C', fresh, '.']);
    await run('mv', [`${baseCache}.partial`, baseCache]);
    await rm(fresh, { recursive: true, force: true });
  }
  await mkdir(server, { recursive: true });
  await run('tar', ['-xzf', baseCache, '-C', server]);
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test makes a Debian tree and enters it (debootstrap, chroot, unshare): run it as root');
  version = (JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as { version: string }).version;
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-debian-'));
  await chmod(work, 0o755);
  server = path.join(work, 'server');
  await unpackBase();

  const out = path.join(work, 'release');
  await run('npm', ['run', '--silent', 'release', '--', '--out', out], { cwd: repo, env: { ...process.env, DEVPLEIN_RELEASE_KEY: '' }, maxBuffer: 16 * 1024 * 1024 });
  await run('tar', ['-xzf', path.join(out, `devplein-${version}.tar.gz`), '-C', path.join(server, 'root')]);
  await rm(out, { recursive: true });
  await copyFile(path.join(repo, 'tests/support/service-manager.sh'), path.join(server, 'usr/local/sbin/devplein-standin'));
  await chmod(path.join(server, 'usr/local/sbin/devplein-standin'), 0o755);

  // As in any chroot: package scripts start no services.
  await writeFile(path.join(server, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  // Fetched on this machine's network; the server's namespace has loopback only.
  await cp('/etc/resolv.conf', path.join(server, 'etc/resolv.conf'));
  const packages = [...new Set([...(await rolePackages('agent')), ...(await rolePackages('control-plane'))])];
  const chrootEnv = { PATH: SYSTEM_PATH, LANG: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive' };
  await run('chroot', [server, 'apt-get', 'update', '-q'], { env: chrootEnv, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  await run('chroot', [server, 'apt-get', 'install', '--download-only', '-y', '-q', '--no-install-recommends', ...packages], { env: chrootEnv, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });

  // The server's namespaces: loopback only, its own PIDs and mounts.
  const mounts = [
    `mount -t proc proc ${server}/proc`,
    `mount -t sysfs sys ${server}/sys`,
    `mount --rbind /dev ${server}/dev`,
    `mount -t tmpfs -o mode=0755 tmpfs ${server}/run`,
    `mount -t tmpfs -o mode=1777 tmpfs ${server}/dev/shm`,
    'ip link set lo up',
  ].join(' && ');
  namespaces = spawn('unshare', ['--net', '--pid', '--mount', '--fork', '--kill-child', 'bash', '-c', `${mounts} && echo ready && exec sleep infinity`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    namespaces!.stdout!.once('data', () => resolve());
    namespaces!.once('exit', (code) => reject(new Error(`the server's namespaces ended at their start (exit ${code})`)));
  });
  // unshare's child (--fork) is the namespaces' first process.
  const { stdout } = await run('pgrep', ['-P', String(namespaces.pid)]);
  namespacePid = Number(stdout.trim().split('\n')[0]);
}, 1_800_000);

afterAll(async () => {
  namespaces?.kill('SIGKILL');
  if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined);
  for (const [name, transcript] of Object.entries(transcripts)) console.log(`\n===== ${name}\n${transcript}`);
}, 120_000);

describe('install.sh on a fresh Debian 12 server (both roles)', () => {
  it('installs the agent role with apt-get: its packages, users, files; the database steps wait for MariaDB', async () => {
    const result = await install('agent');
    transcripts['install.sh agent (1)'] = result.output;
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/pakketten +geïnstalleerd/);
    expect(changedSteps(result.output).length).toBeGreaterThan(5);
    for (const name of await rolePackages('agent')) {
      expect(await onServerOk(`dpkg-query -W -f='\${Status}' ${name}`), name).toBe('install ok installed');
    }
    for (const user of ['devplein-agent', 'devplein-browser']) expect(await onServerOk(`id -u ${user} >/dev/null && echo yes`)).toBe('yes\n');
    expect(await onServerOk('id -nG devplein-agent')).toMatch(/\bdocker\b/);
    expect(result.output).toContain('MariaDB: maak het account uit AGENT_MYSQL_URL');
  }, 900_000);

  it('installs the control-plane role next to it with apt-get; its database steps wait for PostgreSQL', async () => {
    const result = await install('control-plane');
    transcripts['install.sh control-plane (1)'] = result.output;
    expect(result.code, result.output).toBe(0);
    for (const name of await rolePackages('control-plane')) {
      expect(await onServerOk(`dpkg-query -W -f='\${Status}' ${name}`), name).toBe('install ok installed');
    }
    expect(await onServerOk('readlink /opt/devplein/current')).toBe(`releases/${version}\n`);
  }, 900_000);

  it('a second run, with PostgreSQL and MariaDB running, makes the database role, the migrations and the agent account', async () => {
    // What apt would have started on a real server.
    await onServerOk('install -d -o postgres -g postgres -m 2775 /run/postgresql && install -d -o mysql -g mysql /run/mysqld && pg_ctlcluster 15 main start && (mysqld_safe >/dev/null 2>&1 &) && for i in $(seq 100); do mariadb -e "select 1" >/dev/null 2>&1 && exit 0; sleep 0.2; done; echo mariadb did not start; exit 1');
    const agent = await install('agent');
    transcripts['install.sh agent (2)'] = agent.output;
    expect(agent.code, agent.output).toBe(0);
    expect(agent.output).toMatch(/MariaDB-account devplein_agent +aangemaakt/);
    const controlPlane = await install('control-plane');
    transcripts['install.sh control-plane (2)'] = controlPlane.output;
    expect(controlPlane.code, controlPlane.output).toBe(0);
    expect(controlPlane.output).toMatch(/migraties +uitgevoerd/);
    expect(await onServerOk("runuser -u postgres -- psql -qtAc \"select count(*) > 10 from information_schema.tables where table_schema = 'public'\" devplein")).toBe('t\n');
  }, 900_000);

  it('a third run changes no file and says so', async () => {
    const before = await writtenFiles();
    const hash = (text: string) => createHash('sha256').update(text).digest('hex');
    for (const role of ['agent', 'control-plane'] as const) {
      const result = await install(role);
      transcripts[`install.sh ${role} (3)`] = result.output;
      expect(result.code, result.output).toBe(0);
      expect(changedSteps(result.output), `${role}: a step wrote something`).toEqual([]);
      expect(result.output).toMatch(/pakketten +ongewijzigd/);
    }
    expect(hash(await writtenFiles())).toBe(hash(before));
  }, 900_000);

  it("starts each unit's ExecStart as its User with its env file; the agent's and the control plane's /healthz answer", async () => {
    // The school's identity provider is the sysadmin's to fill in (install.sh lists it as left to do).
    await onServerOk(
      [
        "sed -i -e 's|^OIDC_ISSUER=.*|OIDC_ISSUER=https://login.school.test|' -e 's|^OIDC_CLIENT_ID=.*|OIDC_CLIENT_ID=devplein|' -e 's|^OIDC_CLIENT_SECRET=.*|OIDC_CLIENT_SECRET=k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b|' /etc/devplein/control-plane.env",
        // Every setting filled in (the comments still explain CHANGE_ME).
        "! grep -n '^[^#]*CHANGE_ME' /etc/devplein/*.env",
      ].join(' && '),
    );
    for (const unit of ['devplein-browser.service', 'devplein-agent.service', 'devplein-soketi.service', 'devplein-control-plane.service']) {
      const started = await onServer(`export DEVPLEIN_STANDIN_ROOT=/ DEVPLEIN_STANDIN_CAPS=1; devplein-standin start ${unit} || { devplein-standin logs ${unit}; exit 1; }`, 240_000);
      expect(started.code, `${unit}: ${started.output}`).toBe(0);
    }
    const users = await onServerOk('for unit in devplein-browser devplein-agent devplein-soketi devplein-control-plane; do echo "$unit $(ps -o user= -p "$(cat /run/standin/$unit.service.pid)")"; done');
    expect(users.trim().split('\n')).toEqual(['devplein-browser devplein-browser', 'devplein-agent devplein-agent', 'devplein-soketi devplein-soketi', 'devplein-control-plane devplein']);

    let agentHealth = '';
    await waitFor(async () => (agentHealth = (await onServer('curl -fsS --max-time 2 http://127.0.0.1:9465/healthz')).output).includes('"status":"ok"'), {
      description: "the agent's /healthz",
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    transcripts['agent /healthz'] = agentHealth;
    // No Docker engine runs inside; everything else the agent uses does.
    const capabilities = (JSON.parse(agentHealth) as { capabilities: Record<string, { available: boolean }> }).capabilities;
    expect(capabilities.mysql?.available, agentHealth).toBe(true);
    expect(capabilities.chromium?.available, agentHealth).toBe(true);

    let health = '';
    await waitFor(async () => (health = (await onServer('curl -fsS --max-time 2 http://127.0.0.1:8080/healthz')).output).includes('"database":"up"'), {
      description: "the control plane's /healthz",
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    transcripts['control plane /healthz'] = health;
    // The agent answers the control plane over mutual TLS with the certificates install.sh made.
    expect(JSON.parse(health)).toMatchObject({ status: 'ok', database: 'up', agent: { state: 'reachable' } });
  }, 600_000);
});
