/**
 * A fresh Debian server as a school's sysadmin gets one, booted with systemd as PID 1
 * (tests/support/stacks/debian-machine.ts): `install.sh agent` and then `install.sh control-plane` (both
 * roles on one server) from the real release bundle, with real `apt-get install` of every package
 * the roles name and apt starting PostgreSQL, MariaDB, Docker and Caddy as it does on a server;
 * then every shipped unit running as shipped, sandboxing included, started and inspected with
 * `systemctl` and `journalctl`: the control plane, soketi, the agent, its browser and git runner,
 * a WireGuard interface, the nightly backup of both roles and the certificate renewal. Then a
 * school day through the API (signed in at a school provider on the server, CSRF tokens and all):
 * a project's container and site, a thumbnail, a git deploy, a student database and a VPN peer,
 * each write path under its own unit, and every realtime event delivered.
 *
 * One suite, one Debian release a file (tests/ops/debian-12-server.test.ts and -13-): each takes
 * minutes (the install is real) and the ops suite runs one file at a time.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { signFile, writeChecksum } from '../../../scripts/lib/release/sign.ts';
import { DebianMachine, type DebianRelease, debianVersion } from './debian-machine.ts';
import type { ScreenshotState } from '@devplein/contract/dockers';
import type { HttpSession } from '../clients/http-session.ts';
import { shellWord } from '../clients/machine-http.ts';
import { startMachineSchoolLogin } from '../clients/machine-school-login.ts';
import { dockerContainerState, importStaticImage, MACHINE_STATIC_IMAGE, MACHINE_STATIC_LOG_LINE, MACHINE_STATIC_PAGE, siteAnswer, startMachineGitHost } from '../clients/machine-site.ts';
import { approveAccount, signInOnMachine, type MachineApp } from '../clients/machine-user.ts';
import { waitFor } from '../clients/ports.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');

/**
 * The packages install.sh names for a role on a Debian release (its debian_packages line and the
 * release's `debian_packages+=(…)` after it), so the test follows it.
 */
export async function rolePackages(role: 'control-plane' | 'agent', release: DebianRelease): Promise<string[]> {
  const script = await readFile(path.join(repo, 'deploy/install.sh'), 'utf8');
  const start = script.indexOf(`\n  ${role})\n`);
  const section = start < 0 ? '' : script.slice(start, script.indexOf('\n    ;;', start));
  const list = /debian_packages=\(([^)]*)\)/.exec(section)?.[1];
  if (!list) throw new Error(`no debian_packages for ${role} in deploy/install.sh`);
  const added = [...section.matchAll(/"\$\(debian_release\)" == (\d+) \]\]; then debian_packages\+=\(([^)]*)\)/g)]
    .filter((match) => Number(match[1]) === debianVersion[release])
    .flatMap((match) => (match[2] ?? '').trim().split(/\s+/));
  return [...list.trim().split(/\s+/), ...added];
}

/**
 * The report lines (install-common.sh's `report`: what, padded to 52, then the status) whose
 * status says the step wrote something. Only the status counts: "ongewijzigd (alle al
 * geïnstalleerd)" wrote nothing.
 */
export function changedSteps(output: string): string[] {
  return output.split('\n').filter((line) => /^ {3}(?:.{52}|\S{53,}) (aangemaakt|geschreven|gekopieerd|bijgewerkt|geïnstalleerd|uitgevoerd)\b/.test(line));
}

/** Every unit install.sh enables on a server with both roles, and what each must be after the start. */
const LONG_RUNNING = ['devplein-browser.service', 'devplein-git.service', 'devplein-agent.service', 'devplein-soketi.service', 'devplein-control-plane.service'];

/** The control plane as the school's people reach it on this server (APP_URL of the shipped env file; HOST:PORT). */
const MACHINE_APP: MachineApp = { appUrl: 'https://devplein.school.nl', appAddress: 'http://127.0.0.1:8080' };
const ADMIN_EMAIL = 'beheer@school.test';
const STUDENT_EMAIL = 'sam@school.test';
/** Debian packages the user tests need beyond the roles': busybox for the site image made on the server. */
const TEST_PACKAGES = ['busybox-static'];
const DESCRIPTION = 'Mijn portfolio voor de opleiding Software Development, met mijn projecten van dit jaar.';

/** The PHP each Debian release ships (its php-fpm package depends on php<version>-fpm). */
const PHP_OF: Record<DebianRelease, string> = { bookworm: '8.2', trixie: '8.4' };

export function debianServerSuite(release: DebianRelease): void {
  const name = `Debian ${debianVersion[release]} (${release})`;
  let work: string;
  let machine: DebianMachine;
  let version: string;
  const transcripts: Record<string, string> = {};

  let releaseKey: string;
  /** The school's release signer, as a sysadmin hands it to the first install.sh (`--signer`). */
  let signerLine: string;
  /** The first install.sh of the server records the signer; every later run checks against that record. */
  let signerGiven = false;
  const install = (role: 'control-plane' | 'agent') => {
    const signer = signerGiven ? '' : ` --signer '${signerLine}'`;
    signerGiven = true;
    return machine.run(`cd /root/devplein-${version} && ./install.sh ${role}${signer}`, 1_200_000);
  };
  /** A release as the school ships it: the tarball, its .sha256 and its .sig signed with the test's release key. */
  const signedTarball = async (from: string, tarball: string) => {
    await run('tar', ['-czf', tarball, '-C', path.dirname(from), path.basename(from)], { timeout: 600_000 });
    await writeChecksum(tarball);
    await signFile(tarball, releaseKey);
  };
  /** Hashes of every file install.sh writes, to compare runs. */
  const writtenFiles = () =>
    machine.ok('find /etc/devplein /etc/systemd/system /etc/caddy /etc/mysql/mariadb.conf.d /opt/devplein /usr/local/bin -xdev \\( -type f -o -type l \\) -printf "%p %m %u:%g %l\\n" | sort; find /etc/devplein /etc/caddy -type f -exec sha256sum {} + | sort');
  /** The journal of the devplein units at priority err and worse (journalctl -p err). */
  const journalErrors = async () => (await machine.run("journalctl -q --no-pager -p err -u 'devplein-*'")).output.trim();
  /** 'active running success', 'inactive dead success', …: systemctl show prints properties in its own order, so one at a time. */
  const unitState = async (unit: string) => (await machine.run(`for p in ActiveState SubState Result; do systemctl show -p $p --value ${unit}; done | paste -sd' '`)).output.trim();

  beforeAll(async () => {
    version = (JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as { version: string }).version;
    work = await mkdtemp(path.join(os.tmpdir(), `devplein-${release}-`));
    await chmod(work, 0o755);
    // TEST_RELEASE_TARBALL: a bundle built before (as upgrade.test.ts takes it), else this tree's.
    const out = process.env.TEST_RELEASE_TARBALL ? path.dirname(process.env.TEST_RELEASE_TARBALL) : path.join(work, 'release');
    if (!process.env.TEST_RELEASE_TARBALL) await run('npm', ['run', '--silent', 'release', '--', '--out', out], { cwd: repo, env: { ...process.env, DEVPLEIN_RELEASE_KEY: '' }, maxBuffer: 16 * 1024 * 1024, timeout: 1_800_000 });
    const packages = [...new Set([...(await rolePackages('agent', release)), ...(await rolePackages('control-plane', release)), ...TEST_PACKAGES])];
    // The school's release key (made here; a school keeps its own off the servers).
    await mkdir(path.join(work, 'release-key'));
    releaseKey = path.join(work, 'release-key', 'key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'release@school.test', '-f', releaseKey]);
    const [type, base64] = (await readFile(`${releaseKey}.pub`, 'utf8')).split(' ');
    signerLine = `release@school.test ${type} ${base64}`;
    machine = await DebianMachine.boot({
      release,
      work,
      packages,
      prepare: async (tree) => {
        // Downloaded as a school gets it: the tarball beside its checksum and signature, unpacked next to them.
        const tarball = path.join(tree, 'root', `devplein-${version}.tar.gz`);
        await copyFile(path.join(out, `devplein-${version}.tar.gz`), tarball);
        await writeChecksum(tarball);
        await signFile(tarball, releaseKey);
        await run('tar', ['-xzf', tarball, '-C', path.join(tree, 'root')]);
        if (!process.env.TEST_RELEASE_TARBALL) await rm(out, { recursive: true });
      },
    });
  }, 2_400_000);

  afterAll(async () => {
    if (machine) {
      transcripts['journalctl -p warning (devplein units)'] = (await machine.run("journalctl -q --no-pager -p warning -u 'devplein-*' | tail -n 80")).output;
      await machine.stop();
    }
    if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined);
    for (const [title, transcript] of Object.entries(transcripts)) console.log(`\n===== ${name}: ${title}\n${transcript}`);
  }, 180_000);

  describe(`install.sh on a fresh ${name} server with systemd (both roles)`, () => {
    it('installs the agent role: apt-get starts Docker, MariaDB and Caddy; the agent, its browser and git runner run', async () => {
      const result = await install('agent');
      transcripts['install.sh agent (1)'] = result.output;
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/pakketten +geïnstalleerd/);
      for (const name of await rolePackages('agent', release)) {
        expect(await machine.ok(`dpkg-query -W -f='\${Status}' ${name}`), name).toBe('install ok installed');
      }
      expect(await machine.ok('id -nG devplein-agent')).toMatch(/\bdocker\b/);
      // The sysadmin's docker command (on Debian 13 the docker-cli package install.sh adds there).
      expect((await machine.run('docker version --format "{{.Server.Version}}"')).code).toBe(0);
      expect(result.output).toMatch(/MariaDB-account devplein_agent +aangemaakt/);
      for (const unit of ['docker.service', 'mariadb.service', 'caddy.service', 'devplein-browser.service', 'devplein-git.service', 'devplein-agent.service']) {
        expect(await unitState(unit), unit).toMatch(/^active running/);
      }
      expect(await unitState('devplein-backup.timer')).toMatch(/^active waiting/);
      expect(await unitState('devplein-agent-renew.timer')).toMatch(/^active waiting/);
    }, 1_500_000);

    it('installs the control-plane role next to it: PostgreSQL, the database role and the migrations in the first run', async () => {
      const result = await install('control-plane');
      transcripts['install.sh control-plane (1)'] = result.output;
      expect(result.code, result.output).toBe(0);
      for (const name of await rolePackages('control-plane', release)) {
        expect(await machine.ok(`dpkg-query -W -f='\${Status}' ${name}`), name).toBe('install ok installed');
      }
      expect(result.output).toMatch(/migraties +uitgevoerd/);
      expect(await machine.ok('readlink /opt/devplein/current')).toBe(`releases/${version}\n`);
      // phpMyAdmin's PHP-FPM socket in the Caddyfile is this release's PHP (no php-fpm installed yet).
      expect(await machine.ok("grep -o 'php[0-9.]*-fpm.sock' /etc/caddy/Caddyfile")).toBe(`php${PHP_OF[release]}-fpm.sock\n`);
      expect(await unitState('devplein-soketi.service')).toMatch(/^active running/);
      // It waits for the school's identity provider (install.sh lists it as left to do).
      expect(await unitState('devplein-control-plane.service')).toMatch(/^inactive/);
    }, 1_500_000);

    it('a second run changes no file and says so', async () => {
      const before = await writtenFiles();
      const hash = (text: string) => createHash('sha256').update(text).digest('hex');
      for (const role of ['agent', 'control-plane'] as const) {
        const result = await install(role);
        transcripts[`install.sh ${role} (2)`] = result.output;
        expect(result.code, result.output).toBe(0);
        expect(changedSteps(result.output), `${role}: a step wrote something`).toEqual([]);
        expect(result.output).toMatch(/pakketten +ongewijzigd/);
      }
      expect(hash(await writtenFiles())).toBe(hash(before));
    }, 1_500_000);

    it('every long-running unit runs as shipped, as its own user; both /healthz answer; no error in the journal', async () => {
      await machine.ok(
        [
          "sed -i -e 's|^OIDC_ISSUER=.*|OIDC_ISSUER=https://login.school.test|' -e 's|^OIDC_CLIENT_ID=.*|OIDC_CLIENT_ID=devplein|' -e 's|^OIDC_CLIENT_SECRET=.*|OIDC_CLIENT_SECRET=k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b|' /etc/devplein/control-plane.env",
          "! grep -n '^[^#]*CHANGE_ME' /etc/devplein/*.env",
          'systemctl restart devplein-control-plane.service',
        ].join(' && '),
      );
      for (const unit of LONG_RUNNING) expect(await unitState(unit), unit).toMatch(/^active running/);
      const users = await machine.ok(`for unit in ${LONG_RUNNING.join(' ')}; do echo "$unit $(ps -o user= -p "$(systemctl show -p MainPID --value $unit)")"; done`);
      expect(users.trim().split('\n')).toEqual([
        'devplein-browser.service devplein-browser',
        'devplein-git.service devplein-git',
        'devplein-agent.service devplein-agent',
        'devplein-soketi.service devplein-soketi',
        'devplein-control-plane.service devplein',
      ]);

      let agentHealth = '';
      await waitFor(async () => (agentHealth = (await machine.run('curl -fsS --max-time 2 http://127.0.0.1:9465/healthz')).output).includes('"status":"ok"'), {
        description: "the agent's /healthz",
        timeoutMs: 90_000,
        intervalMs: 500,
      });
      transcripts['agent /healthz'] = agentHealth;
      const capabilities = (JSON.parse(agentHealth) as { capabilities: Record<string, { available: boolean; reason?: string }> }).capabilities;
      for (const capability of ['docker', 'mysql', 'chromium', 'proxy', 'wireguard']) expect(capabilities[capability]?.available, `${capability}: ${agentHealth}`).toBe(true);

      let health = '';
      await waitFor(async () => (health = (await machine.run('curl -fsS --max-time 2 http://127.0.0.1:8080/healthz')).output).includes('"database":"up"'), {
        description: "the control plane's /healthz",
        timeoutMs: 90_000,
        intervalMs: 500,
      });
      transcripts['control plane /healthz'] = health;
      expect(JSON.parse(health)).toMatchObject({ status: 'ok', database: 'up', agent: { state: 'reachable' } });
      expect(await journalErrors()).toBe('');
    }, 600_000);

    it("soketi under its unit delivers an event over its websocket (the bundle's soketi Node on this Debian's glibc)", async () => {
      await copyFile(path.join(repo, 'tests/support/services/soketi-delivery-check.mjs'), path.join(machine.tree, 'root/soketi-delivery-check.mjs'));
      const delivered = await machine.run('set -a; . /etc/devplein/soketi.env; set +a; /opt/devplein/current/node/bin/node /root/soketi-delivery-check.mjs', 60_000);
      transcripts['soketi websocket'] = `${delivered.output}\nsoketi's node: ${(await machine.run('readlink /proc/$(systemctl show -p MainPID --value devplein-soketi.service)/exe; ldd --version | head -n 1')).output}`;
      expect(delivered.code, transcripts['soketi websocket']).toBe(0);
      expect(delivered.output).toMatch(/^delivered \{"message":"hallo"\}/m);
    }, 120_000);

    it('a WireGuard interface runs under devplein-wireguard@.service', async () => {
      const started = await machine.run('systemctl start devplein-wireguard@wgtest.service && for i in $(seq 50); do wg show wgtest >/dev/null 2>&1 && break; sleep 0.2; done; wg show wgtest');
      transcripts['devplein-wireguard@wgtest'] = `${started.output}\n${(await machine.run('journalctl -q --no-pager -u devplein-wireguard@wgtest')).output}`;
      expect(started.code, transcripts['devplein-wireguard@wgtest']).toBe(0);
      expect(started.output).toMatch(/interface: wgtest/);
      expect(await unitState('devplein-wireguard@wgtest.service')).toMatch(/^active running/);
      await machine.ok('systemctl stop devplein-wireguard@wgtest.service');
    }, 120_000);

    it('devplein-backup.service backs up both roles under its own sandbox, records each, and prunes', async () => {
      const started = await machine.run('systemctl start devplein-backup.service', 900_000);
      transcripts['devplein-backup.service (1)'] = (await machine.run('journalctl -q --no-pager -u devplein-backup.service')).output;
      expect(started.code, transcripts['devplein-backup.service (1)']).toBe(0);
      expect(await unitState('devplein-backup.service')).toMatch(/success$/);
      const archives = async () => (await machine.ok('ls /var/backups/devplein')).trim().split('\n').filter(Boolean).sort();
      const first = await archives();
      expect(first.filter((file) => file.includes('control-plane')), first.join(', ')).toHaveLength(1);
      expect(first.filter((file) => file.includes('agent')), first.join(', ')).toHaveLength(1);

      // What the status page shows: the control plane's run from PostgreSQL, the dev server's from the file its agent reads.
      expect(await machine.ok("runuser -u postgres -- psql -qtAc \"select ok from backup_runs where role = 'control-plane' order by id desc limit 1\" devplein")).toBe('t\n');
      const statusFile = (await machine.ok('. /etc/devplein/agent.env; echo "${AGENT_BACKUP_STATUS_FILE:-$AGENT_DATA_DIR/backup-status.json}"')).trim();
      const status = JSON.parse(await machine.ok(`runuser -u devplein-agent -- cat ${statusFile}`)) as { ok: boolean };
      expect(status.ok, JSON.stringify(status)).toBe(true);

      // Retention: with BACKUP_KEEP=1 the next run leaves one archive of each role, the new one.
      await machine.ok("sed -i 's/^BACKUP_KEEP=.*/BACKUP_KEEP=1/' /etc/devplein/backup.env && sleep 1.1");
      const again = await machine.run('systemctl start devplein-backup.service', 900_000);
      transcripts['devplein-backup.service (2)'] = (await machine.run('journalctl -q --no-pager -u devplein-backup.service')).output;
      expect(again.code, transcripts['devplein-backup.service (2)']).toBe(0);
      const second = await archives();
      expect(second).toHaveLength(2);
      expect(second.filter((file) => first.includes(file)), `${first.join(', ')} → ${second.join(', ')}`).toEqual([]);
      expect(await journalErrors()).toBe('');
    }, 1_800_000);

    describe('a school day through the API, every write path under its own unit', () => {
      let admin: HttpSession;
      let student: HttpSession;
      let imageId: number;
      let site: { id: number; name: string; domain: string };
      /** The journal of the units a test uses, from its start to its end (passed or failed), kept for the report. */
      const journalAtEnd = (title: string, units: string[]) => {
        const from = Math.floor(Date.now() / 1000) - 1;
        onTestFinished(async () => {
          transcripts[title] = (await machine.run(`journalctl -q --no-pager --since=@${from} ${units.map((unit) => `-u ${unit}`).join(' ')} | tail -n 80`)).output;
        });
      };
      const controlPlaneHealthy = async () => {
        let health = '';
        await waitFor(async () => (health = (await machine.run('curl -fsS --max-time 2 http://127.0.0.1:8080/healthz')).output).includes('"state":"reachable"'), {
          description: "the control plane's /healthz with the agent reachable",
          timeoutMs: 90_000,
          intervalMs: 500,
        });
        return health;
      };
      /** A visible project the student requests on the static option, approved by the admin. */
      const approvedProject = async (name: string, repro: string | null) => {
        const requested = await student.json<{ id: number }>('POST', '/api/user/project', { name, domain: `${name}.dev.school.nl`, docker_id: imageId, description: DESCRIPTION, visible: '1', users: [], end_date: null, repro });
        expect(requested.status, JSON.stringify(requested.body)).toBe(201);
        const approved = await admin.json<{ validated: boolean }>('PUT', `/api/admin/projects/${requested.body.id}`, {});
        expect(approved, JSON.stringify(approved.body)).toMatchObject({ status: 200, body: { validated: true } });
        return { id: requested.body.id, name, domain: `${name}.dev.school.nl` };
      };
      /** When the site's container was started: its capture after the start comes THUMBNAIL_AFTER_START_S (20 s) later. */
      let siteStartedAt = 0;
      /** The project's screenshot state once no capture is running or still due after the start at `startedAt` (none left to fail on a removed site). */
      const capturesDone = async (projectId: number, startedAt: number) => {
        let state: ScreenshotState | undefined;
        await waitFor(
          async () => {
            state = (await admin.json<ScreenshotState>('GET', `/api/admin/dockers/${projectId}/screenshot`)).body;
            return !state.inFlight && state.lastAttemptAt !== null && Date.parse(state.lastAttemptAt) >= startedAt + 20_000;
          },
          { description: `the captures of project ${projectId} (state: ${JSON.stringify(state)})`, timeoutMs: 180_000, intervalMs: 1_000 },
        );
        return state!;
      };

      it('the school signs in at its provider (OpenID Connect code flow into the control plane under its unit): the first admin, and a student the admin activates', async () => {
        journalAtEnd('sign-in', ['devplein-control-plane', 'school-login']);
        const school = await startMachineSchoolLogin(machine);
        await machine.ok(
          [
            `sed -i -e 's|^OIDC_ISSUER=.*|OIDC_ISSUER=${school.env.OIDC_ISSUER}|' -e 's|^INITIAL_ADMIN_EMAILS=.*|INITIAL_ADMIN_EMAILS=${ADMIN_EMAIL}|' -e 's|^GIT_ALLOWED_HOSTS=.*|GIT_ALLOWED_HOSTS=git.school.test|' /etc/devplein/control-plane.env`,
            'systemctl restart devplein-control-plane.service',
          ].join(' && '),
        );
        await controlPlaneHealthy();
        admin = await signInOnMachine(machine, MACHINE_APP, ADMIN_EMAIL);
        expect((await admin.json<{ admin: boolean }>('GET', '/api/user')).body.admin).toBe(true);
        student = await signInOnMachine(machine, MACHINE_APP, STUDENT_EMAIL);
        // Not activated yet: the API refuses it what an activated student may do.
        expect((await student.api('GET', '/api/user/dockers')).status).toBe(403);
        await approveAccount(admin, STUDENT_EMAIL, { developer: true });
        expect((await student.api('GET', '/api/user/dockers')).status).toBe(200);
        expect(await journalErrors()).toBe('');
      }, 300_000);

      it("a project's container: made, started, its site through Caddy, its logs read — the control plane → gRPC → the agent under its unit → Docker and Caddy", async () => {
        journalAtEnd('container', ['devplein-control-plane', 'devplein-agent']);
        await importStaticImage(machine);
        // Option 1 is 'Anders' (spec §9: the teacher still picks the image; never approved as is).
        // A fresh install has no such row, so the school's first option would get id 1: made first here.
        const other = await admin.json<{ id: number }>('POST', '/api/admin/dockers/images', { name: 'Anders (docent kiest)', image: MACHINE_STATIC_IMAGE, ssh: false, wordpress: false, capabilities: [] });
        expect(other, JSON.stringify(other.body)).toMatchObject({ status: 201, body: { id: 1 } });
        const option = await admin.json<{ id: number }>('POST', '/api/admin/dockers/images', {
          name: 'Statische site',
          image: MACHINE_STATIC_IMAGE,
          ssh: false,
          wordpress: false,
          capabilities: [],
          deploy: { webRoot: '/www', afterUpdate: null, keepPaths: [], buildCommand: null, buildOutput: null },
        });
        expect(option.status, JSON.stringify(option.body)).toBe(201);
        imageId = option.body.id;
        site = await approvedProject('sams-site', null);

        siteStartedAt = Date.now();
        const created = await student.json<Array<{ State: string }>>('POST', '/api/user/dockers', { id: site.id });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const started = await student.json<Array<{ State: string }>>('PUT', `/api/user/dockers/${site.id}?action=start`);
        expect(started.status, JSON.stringify(started.body)).toBe(200);
        expect(started.body[0]?.State).toBe('running');
        expect(await dockerContainerState(machine, site.name)).toBe('running');

        let answer = { status: 0, body: '' };
        await waitFor(async () => (answer = await siteAnswer(machine, site.domain)).status === 200, { description: `${site.domain} through Caddy (last: ${JSON.stringify(answer)})`, timeoutMs: 30_000, intervalMs: 250 });
        expect(answer.body).toContain(MACHINE_STATIC_PAGE);

        const logs = await student.json<{ lines: Array<{ text: string }> }>('GET', `/api/user/container/${site.name}?format=json`);
        expect(logs.status, JSON.stringify(logs.body)).toBe(200);
        expect(logs.body.lines.map((line) => line.text).join('\n')).toContain(MACHINE_STATIC_LOG_LINE);
        expect(await journalErrors()).toBe('');
      }, 600_000);

      it('a thumbnail of that site: Chromium under devplein-browser.service captures it through Caddy, the PNG reaches the control plane and the wall serves it', async () => {
        journalAtEnd('thumbnail', ['devplein-control-plane', 'devplein-agent', 'devplein-browser']);
        // The admin's 'ververs screenshot'; the capture 20 s after the start (THUMBNAIL_AFTER_START_S) comes too, and both are waited for.
        const asked = await admin.json('POST', `/api/admin/dockers/${site.id}/screenshot`, {});
        expect(asked.status, JSON.stringify(asked.body)).toBe(202);
        const state = await capturesDone(site.id, siteStartedAt);
        expect(state, JSON.stringify(state)).toMatchObject({ lastError: null, inFlight: false });
        expect(state.capturedAt).not.toBeNull();
        const answer = await admin.raw(`/misc/browserimg2/small/${site.name}_s.png`);
        const png = Buffer.from(await answer.arrayBuffer());
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toBe('image/png');
        expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
        expect(await journalErrors()).toBe('');
      }, 300_000);

      it('the container stopped and removed with its project: no container, no route left', async () => {
        journalAtEnd('container removed', ['devplein-control-plane', 'devplein-agent']);
        const stopped = await student.json<Array<{ State: string }>>('PUT', `/api/user/dockers/${site.id}?action=stop`);
        expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
        expect(await dockerContainerState(machine, site.name)).toBe('exited');
        const removed = await student.api('DELETE', `/api/user/project/${site.id}`);
        expect(removed.status, await removed.text()).toBeLessThan(300);
        expect(await dockerContainerState(machine, site.name)).toBe('missing');
        const answer = await siteAnswer(machine, site.domain);
        expect(answer).toMatchObject({ status: 404, body: expect.stringContaining('Deze website bestaat niet (meer).') });
        expect(await journalErrors()).toBe('');
      }, 300_000);

      it('a git deploy: devplein-git.service clones from the school git host, the agent copies the tree into the container; a pushed commit and Bijwerken follow', async () => {
        journalAtEnd('git deploy', ['devplein-control-plane', 'devplein-agent', 'devplein-git']);
        const gitHost = await startMachineGitHost(machine, { 'index.html': '<h1>Versie 1 uit git</h1>\n' });
        const project = await approvedProject('sams-git', gitHost.url);
        type Panel = { deploys: Array<{ id: number; status: string; failure?: string | null; commit?: { hash: string } | null }> };
        const deployed = async (description: string, count: number) => {
          let panel: Panel = { deploys: [] };
          await waitFor(
            async () => {
              panel = (await student.json<Panel>('GET', `/api/user/dockers/${project.id}/deploys`)).body;
              return panel.deploys.length >= count && panel.deploys.every((deploy) => deploy.status === 'deployed' || deploy.status === 'failed');
            },
            { description: `${description} (panel: ${JSON.stringify(panel)})`, timeoutMs: 180_000, intervalMs: 1_000 },
          );
          return panel;
        };
        const startedAt = Date.now();
        const created = await student.json('POST', '/api/user/dockers', { id: project.id });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        expect((await student.json('PUT', `/api/user/dockers/${project.id}?action=start`)).status).toBe(200);
        // Made with a repository: the first deploy comes by itself.
        const first = await deployed('the deploy at create', 1);
        expect(first.deploys.map((deploy) => deploy.status), JSON.stringify(first)).toEqual(['deployed']);
        await waitFor(async () => (await siteAnswer(machine, project.domain)).body.includes('Versie 1 uit git'), { description: `${project.domain} with the first commit`, timeoutMs: 30_000, intervalMs: 250 });

        const hash = await gitHost.pushCommit({ 'index.html': '<h1>Versie 2 uit git</h1>\n' }, 'tweede versie');
        const asked = await student.json('POST', `/api/user/dockers/${project.id}/deploys`, {});
        expect(asked.status, JSON.stringify(asked.body)).toBe(202);
        const second = await deployed('Bijwerken', 2);
        expect(second.deploys.map((deploy) => deploy.status), JSON.stringify(second)).toEqual(['deployed', 'deployed']);
        expect(JSON.stringify(second)).toContain(hash);
        await waitFor(async () => (await siteAnswer(machine, project.domain)).body.includes('Versie 2 uit git'), { description: `${project.domain} with the pushed commit`, timeoutMs: 30_000, intervalMs: 250 });
        // What the git runner wrote is its own: the checkout in its state folder, owned by its user.
        expect(await machine.ok(`stat -c '%U:%G' /var/lib/devplein-git/checkouts/${project.id}`)).toBe('devplein-git:devplein-git\n');

        // The wall's capture after the start is done before the site goes.
        expect((await capturesDone(project.id, startedAt)).lastError).toBeNull();
        const removed = await student.api('DELETE', `/api/user/project/${project.id}`);
        expect(removed.status, await removed.text()).toBeLessThan(300);
        expect(await journalErrors()).toBe('');
      }, 600_000);

      it("a student's MySQL database: the agent under its unit makes the MariaDB account and database, the student logs in with them; dropped again", async () => {
        journalAtEnd('database', ['devplein-control-plane', 'devplein-agent']);
        type Database = { id: number; name: string; user: string; password: string };
        const made = await student.json<Database[]>('POST', '/api/user/databases', { db: 'web' });
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const database = made.body.find((entry) => entry.name.endsWith('_web'));
        expect(database, JSON.stringify(made.body)).toBeDefined();
        const { id, name, user, password } = database!;
        const login = `mariadb -h 127.0.0.1 -u ${shellWord(user)} -p${shellWord(password)} -N -e 'create table t (n int); insert into t values (42); select n from t' ${shellWord(name)}`;
        expect((await machine.ok(login)).trim()).toBe('42');
        const dropped = await student.json<Database[]>('DELETE', `/api/user/databases/${id}`);
        expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
        expect(dropped.body.map((entry) => entry.id)).not.toContain(id);
        expect((await machine.ok(`mariadb -N -e "select count(*) from mysql.user where user = '${user}'; select count(*) from information_schema.schemata where schema_name = '${name}'"`)).trim().split('\n')).toEqual(['0', '0']);
        expect(await journalErrors()).toBe('');
      }, 300_000);

      it('a VPN configuration: the agent under its unit adds the peer to its WireGuard interface; the student downloads the file', async () => {
        journalAtEnd('vpn', ['devplein-control-plane', 'devplein-agent']);
        const made = await student.json<{ identifier: string }>('POST', '/api/vpn', {});
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const file = await student.api('GET', `/api/vpn/${made.body.identifier}`);
        const text = await file.text();
        expect(file.status, text).toBe(200);
        const privateKey = /^PrivateKey\s*=\s*(\S+)$/m.exec(text)?.[1];
        expect(privateKey, text).toBeDefined();
        const publicKey = (await machine.ok(`echo '${privateKey}' | wg pubkey`)).trim();
        const interfaceName = (await machine.ok("sed -n 's/^AGENT_WG_INTERFACE=//p' /etc/devplein/agent.env")).trim();
        expect(await machine.ok(`wg show ${interfaceName} peers`)).toContain(publicKey);
        expect(await journalErrors()).toBe('');
      }, 300_000);

      it("every realtime event of the day reached soketi: the control plane's journal has no failed trigger", async () => {
        // The school day's container events, deploy updates and deploy log lines all go to soketi (warnings when they do not).
        const failed = (await machine.run("journalctl -q --no-pager -o cat -u devplein-control-plane.service | grep -E 'realtime trigger failed|deploy (update|log) not sent' | head -n 3")).output.trim();
        expect(failed).toBe('');
      }, 60_000);
    });

    it('devplein upgrade of a signed newer release under systemd: every unit runs the new release, the rows stay, no error in the journal', async () => {
      // A newer bundle: the installed one hard-linked, with the next version (as tests/ops/upgrade.test.ts makes them).
      const next = version.replace(/(\d+)$/, (patch) => String(Number(patch) + 1));
      const nextTree = path.join(work, 'next', `devplein-${next}`);
      await mkdir(path.dirname(nextTree));
      await run('cp', ['-a', path.join(machine.tree, 'root', `devplein-${version}`), nextTree]);
      await writeFile(path.join(nextTree, 'VERSION'), `${next}\n`);
      await signedTarball(nextTree, path.join(machine.tree, 'root', `devplein-${next}.tar.gz`));
      const rows = "runuser -u postgres -- psql -qtAc \"select (select count(*) from knex_migrations) || ' ' || (select count(*) from users)\" devplein";
      const before = await machine.ok(rows);
      // Through the installed release's own check (the signer install.sh recorded), as a school upgrades.
      const result = await machine.run(`devplein upgrade /root/devplein-${next}.tar.gz`, 900_000);
      transcripts['devplein upgrade'] = result.output;
      expect(result.output).toContain('goed ondertekend door release@school.test');
      expect(result.code, result.output).toBe(0);
      expect(await machine.ok('readlink /opt/devplein/current')).toBe(`releases/${next}\n`);
      for (const unit of LONG_RUNNING) {
        expect(await unitState(unit), unit).toMatch(/^active running/);
        expect(await machine.ok(`readlink /proc/$(systemctl show -p MainPID --value ${unit})/exe`), unit).toContain(`/opt/devplein/releases/${next}/`);
      }
      expect(await machine.ok(rows)).toBe(before);
      const agentReachable = (answer: string) => {
        try {
          return (JSON.parse(answer) as { agent?: { state?: string } }).agent?.state === 'reachable';
        } catch {
          return false;
        }
      };
      await waitFor(async () => agentReachable((await machine.run('curl -fsS --max-time 2 http://127.0.0.1:8080/healthz')).output), {
        description: "the upgraded control plane's /healthz with the agent reachable",
        timeoutMs: 90_000,
        intervalMs: 500,
      });
      expect(await journalErrors()).toBe('');
    }, 1_200_000);

    it('devplein-agent-renew.service runs under its unit: nothing to renew for a certificate far from its end', async () => {
      const started = await machine.run('systemctl start devplein-agent-renew.service', 300_000);
      transcripts['devplein-agent-renew.service'] = (await machine.run('journalctl -q --no-pager -u devplein-agent-renew.service')).output;
      expect(started.code, transcripts['devplein-agent-renew.service']).toBe(0);
      expect(await unitState('devplein-agent-renew.service')).toMatch(/success$/);
      expect(await journalErrors()).toBe('');
    }, 300_000);
  });
}
