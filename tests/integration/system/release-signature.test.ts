/**
 * What a school installs is what its release signer signed (issue 33): `install.sh` checks the
 * tarball beside the unpacked bundle (its .sha256 and its OpenSSH signature against `--signer` or
 * /etc/devplein/release-signers) and that the unpacked tree is that tarball, and refuses otherwise
 * unless `--unsigned`; the INSTALLED release's `devplein upgrade <tarball>` does the same check
 * with its own code before it unpacks anything, refuses an older or the same version, and only
 * then runs the new bundle's deploy/upgrade.sh; `devplein release-signers add|remove|list`
 * rotates the signer, atomically and with an audit trail.
 *
 * Small bundles with the release's layout (the real bin/devplein and deploy/, a VERSION, no
 * servers) are packed and signed as scripts/release.ts does (packTarGz, writeChecksum,
 * signFile), with real ed25519 and ECDSA keys made by ssh-keygen here. The new bundle's
 * deploy/upgrade.sh is replaced by a probe that says where it runs from: the real one is
 * tests/ops/upgrade.test.ts's. Runs as root (install.sh's useradd --prefix, chown).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packTarGz } from '../../../scripts/lib/release/archive.ts';
import { signFile, writeChecksum } from '../../../scripts/lib/release/sign.ts';
import { rootWithHostAccounts, stageScriptBundle } from '../../support/stacks/install-roots.ts';
import { generateSshKeys } from '../../support/fixtures/ssh-keygen-fixtures.ts';

const execFileAsync = promisify(execFile);
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const installed = '0.1.0';

let work: string;
/** logger(1) stand-in: the journal lines the scripts send, one per line. */
let journal: string;
let env: Record<string, string>;

interface Key {
  /** The private key file (signFile's argument). */
  file: string;
  /** `principal keytype base64`: what --signer and release-signers add take. */
  signer: string;
  fingerprint: string;
}
let school: Key;
let stranger: Key;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function makeKey(name: string, kind: string, principal: string): Promise<Key> {
  const [key] = generateSshKeys({ kinds: [kind], comment: () => principal }).keys;
  if (!key) throw new Error(`ssh-keygen made no ${kind} key`);
  const file = path.join(work, 'keys', name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, key.privateKey, { mode: 0o600 });
  const [type, base64] = key.publicKey.split(' ');
  return { file, signer: `${principal} ${type} ${base64}`, fingerprint: key.fingerprint };
}

interface Bundle {
  /** The unpacked bundle folder (devplein-<version>), beside its tarball. */
  dir: string;
  tarball: string;
}

/**
 * A bundle of `version` packed into `<download>/devplein-<version>.tar.gz` with its checksum,
 * signed by `key` (in `namespace`) unless `key` is null, and unpacked beside it as a sysadmin does.
 */
async function makeBundle(download: string, version: string, options: { key: Key | null; namespace?: string; edit?: (dir: string) => Promise<void> }): Promise<Bundle> {
  const staging = await mkdtemp(path.join(work, 'staging-'));
  const stage = path.join(staging, `devplein-${version}`);
  await stageScriptBundle(stage, version);
  // The new bundle's upgrade: says that it ran, from where, with what.
  await writeFile(path.join(stage, 'deploy/upgrade.sh'), '#!/usr/bin/env bash\necho "upgrade.sh van $(cat "$(dirname "$0")/../VERSION") uit $(dirname "$(readlink -f "$0")") met $*"\n', { mode: 0o755 });
  await options.edit?.(stage);
  await mkdir(download, { recursive: true });
  const tarball = path.join(download, `devplein-${version}.tar.gz`);
  await packTarGz(stage, tarball, new Date('2026-12-01T00:00:00Z'));
  await writeChecksum(tarball);
  if (options.key) {
    if (options.namespace) {
      await execFileAsync('ssh-keygen', ['-q', '-Y', 'sign', '-n', options.namespace, '-f', options.key.file, tarball]);
    } else {
      await signFile(tarball, options.key.file);
    }
  }
  await rm(staging, { recursive: true, force: true });
  await execFileAsync('tar', ['-xzf', tarball, '-C', download]);
  return { dir: path.join(download, `devplein-${version}`), tarball };
}

/** A throwaway root with the host's accounts minus devplein's (enough for useradd --prefix). */
async function makeRoot(name: string): Promise<string> {
  const root = path.join(work, name);
  await rootWithHostAccounts(root);
  return root;
}

const install = (bundle: Bundle, role: string, root: string, options: string[] = []): Promise<Result> =>
  run(path.join(bundle.dir, 'install.sh'), [role, '--root', root, '--no-start', '--packages=skip', ...options]);

/** The installed release's own devplein (as /usr/local/bin/devplein is on a server). */
const devplein = (root: string, args: string[]): Promise<Result> => run(path.join(root, 'opt/devplein/current/bin/devplein'), [...args.slice(0, 1), '--root', root, ...args.slice(1)]);

const signersFile = (root: string): string => path.join(root, 'etc/devplein/release-signers');
const auditLog = (root: string): string => path.join(root, 'var/log/devplein/release-signers.log');

let good: Bundle;
let unsigned: Bundle;
/** The server the upgrades go to: 0.1.0 installed with --signer. */
let server: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('install.sh runs as root (useradd, chown): run this test as root');
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-signature-'));
  const shims = path.join(work, 'shims');
  await mkdir(shims);
  journal = path.join(work, 'journal');
  await writeFile(path.join(shims, 'logger'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${journal}'\n`, { mode: 0o755 });
  env = { PATH: `${shims}:${SYSTEM_PATH}`, LANG: 'C.UTF-8', SUDO_USER: 'beheerder' };
  school = await makeKey('school', 'ed25519', 'release@school.test');
  stranger = await makeKey('stranger', 'ecdsa-256', 'iemand@elders.test');
  good = await makeBundle(path.join(work, 'download'), installed, { key: school });
  unsigned = await makeBundle(path.join(work, 'unsigned'), installed, { key: null });
  server = await makeRoot('server');
  const first = await install(good, 'control-plane', server, ['--signer', school.signer]);
  if (first.code !== 0) throw new Error(`the signed install failed (${first.code}):\n${first.stdout}${first.stderr}`);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('install.sh checks the bundle it installs', () => {
  it('installs a signed bundle with --signer and records the signer, with who and when', async () => {
    expect(readFileSync(path.join(server, 'opt/devplein/current/VERSION'), 'utf8')).toBe(`${installed}\n`);
    const lines = readFileSync(signersFile(server), 'utf8').trim().split('\n');
    expect(lines).toEqual([`release@school.test namespaces="devplein-release" ${school.signer.split(' ').slice(1).join(' ')}`]);
    expect((statSync(signersFile(server)).mode & 0o777).toString(8)).toBe('644');
    const audit = readFileSync(auditLog(server), 'utf8');
    expect(audit).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ beheerder install\\.sh toegevoegd release@school\\.test ${school.fingerprint.replace(/[+/]/g, '\\$&')}\n$`));
    expect(readFileSync(journal, 'utf8')).toContain(`-t devplein release-signers: beheerder install.sh toegevoegd release@school.test ${school.fingerprint}`);
  });

  it('a second role on the same server checks against the recorded signer', async () => {
    const result = await install(good, 'agent', server);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`goed ondertekend door release@school.test (${school.fingerprint})`);
  });

  it('refuses an unsigned bundle unless --unsigned, which it says loudly', async () => {
    const root = await makeRoot('unsigned');
    const refused = await install(unsigned, 'control-plane', root, ['--signer', school.signer]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(3);
    expect(refused.stderr).toContain('niet ondertekend');
    expect(existsSync(path.join(root, 'opt/devplein')), 'nothing installed').toBe(false);
    const withoutSigner = await install(unsigned, 'control-plane', root);
    expect(withoutSigner.code).toBe(3);
    expect(withoutSigner.stderr).toContain('--signer');

    const accepted = await install(unsigned, 'control-plane', root, ['--unsigned']);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('LET OP: de handtekening van deze bundel is NIET gecontroleerd (--unsigned)');
    expect(existsSync(signersFile(root)), 'no signer recorded').toBe(false);
  });

  it('refuses a bundle signed by someone else, a changed tarball and an unpacked tree that is not the tarball', async () => {
    const root = await makeRoot('refusals');
    const foreign = await makeBundle(path.join(work, 'foreign'), installed, { key: stranger });
    const wrongSigner = await install(foreign, 'control-plane', root, ['--signer', school.signer]);
    expect(wrongSigner.code, wrongSigner.stdout + wrongSigner.stderr).toBe(3);
    expect(wrongSigner.stderr).toContain('niet ondertekend door een releaseondertekenaar');

    const changed = await makeBundle(path.join(work, 'changed'), installed, { key: school });
    await appendFile(changed.tarball, Buffer.from([0]));
    const changedTarball = await install(changed, 'control-plane', root, ['--signer', school.signer]);
    expect(changedTarball.code).toBe(3);
    expect(changedTarball.stderr).toContain('controlegetal klopt niet');

    const tampered = await makeBundle(path.join(work, 'tampered'), installed, { key: school });
    await appendFile(path.join(tampered.dir, 'deploy/install-common.sh'), '\n# added after unpacking\n');
    const tamperedTree = await install(tampered, 'control-plane', root, ['--signer', school.signer]);
    expect(tamperedTree.code, tamperedTree.stdout + tamperedTree.stderr).toBe(3);
    expect(tamperedTree.stderr).toContain('deploy/install-common.sh');
    expect(tamperedTree.stderr).toContain('wijkt af van de ondertekende tarball');

    await writeFile(path.join(good.dir, 'extra.sh'), 'echo extra\n');
    try {
      const extra = await install(good, 'control-plane', root, ['--signer', school.signer]);
      expect(extra.code).toBe(3);
      expect(extra.stderr).toContain('extra.sh');
    } finally {
      await rm(path.join(good.dir, 'extra.sh'));
    }
    expect(existsSync(path.join(root, 'opt/devplein')), 'nothing installed').toBe(false);
  });

  it('on a terminal without --signer: shows the fingerprint of the signature\'s key and records it only after "ja"', async () => {
    // script(1) gives install.sh a terminal; the answer comes on it.
    const onTerminal = (root: string, answer: string): Promise<Result> =>
      run('sh', ['-c', `printf '%s\\n' "$1" | script -qec "$2 control-plane --root $3 --no-start --packages=skip" /dev/null`, 'terminal', answer, path.join(good.dir, 'install.sh'), root]);
    const declined = await makeRoot('terminal-nee');
    const no = await onTerminal(declined, 'nee');
    expect(no.code, no.stdout + no.stderr).toBe(3);
    expect(no.stdout).toContain(`De bundel is ondertekend met de sleutel ${school.fingerprint} (ssh-ed25519)`);
    expect(existsSync(path.join(declined, 'opt/devplein')), 'nothing installed').toBe(false);

    const confirmed = await makeRoot('terminal-ja');
    const yes = await onTerminal(confirmed, 'ja');
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    expect(yes.stdout).toContain(`goed ondertekend door release-signer (${school.fingerprint})`);
    expect(readFileSync(signersFile(confirmed), 'utf8')).toBe(`release-signer namespaces="devplein-release" ${school.signer.split(' ').slice(1).join(' ')}\n`);
  });

  it('install.sh upgrade checks too', async () => {
    const result = await run(path.join(unsigned.dir, 'install.sh'), ['upgrade', '--root', server]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('niet ondertekend');
  });
});

describe('devplein upgrade <tarball>, by the installed release', () => {
  it('refuses a tarball without a signature, before unpacking anything', async () => {
    const bundle = await makeBundle(path.join(work, 'up-unsigned'), '0.2.0', { key: null });
    const result = await devplein(server, ['upgrade', bundle.tarball]);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toContain(`niet ondertekend: ${bundle.tarball}.sig ontbreekt`);
    expect(readdirSync(path.join(server, 'opt/devplein')).sort()).toEqual(['current', 'releases']);
  });

  it('uses its own check, not the new bundle\'s: a bundle whose verifier always agrees is still refused', async () => {
    const bundle = await makeBundle(path.join(work, 'up-lying'), '0.2.0', {
      key: stranger,
      edit: async (dir) => {
        for (const script of ['deploy/release-trust.sh', 'deploy/verified-upgrade.sh']) await writeFile(path.join(dir, script), '# always fine\nverify_release() { :; }\nexit 0\n');
      },
    });
    const result = await devplein(server, ['upgrade', bundle.tarball]);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toContain('niet ondertekend door een releaseondertekenaar');
  });

  it('refuses a changed tarball, a wrong signer and a signature of another namespace', async () => {
    const changed = await makeBundle(path.join(work, 'up-changed'), '0.2.0', { key: school });
    await appendFile(changed.tarball, Buffer.from('x'));
    const changedResult = await devplein(server, ['upgrade', changed.tarball]);
    expect(changedResult.code).toBe(3);
    expect(changedResult.stderr).toContain('controlegetal klopt niet');

    // Changed with a checksum to match: only the signature can tell.
    await writeChecksum(changed.tarball);
    const resummed = await devplein(server, ['upgrade', changed.tarball]);
    expect(resummed.code).toBe(3);
    expect(resummed.stderr).toContain('de handtekening klopt niet bij deze tarball');

    const foreign = await makeBundle(path.join(work, 'up-foreign'), '0.2.0', { key: stranger });
    const foreignResult = await devplein(server, ['upgrade', foreign.tarball]);
    expect(foreignResult.code).toBe(3);
    expect(foreignResult.stderr).toContain(`niet ondertekend door een releaseondertekenaar uit ${'/etc/devplein/release-signers'}`);

    const otherNamespace = await makeBundle(path.join(work, 'up-namespace'), '0.2.0', { key: school, namespace: 'git' });
    const namespaceResult = await devplein(server, ['upgrade', otherNamespace.tarball]);
    expect(namespaceResult.code).toBe(3);
    expect(namespaceResult.stderr).toContain('geen releasehandtekening (naamruimte devplein-release)');
  });

  it('refuses an older and the same version, signed or not', async () => {
    const older = await makeBundle(path.join(work, 'up-older'), '0.0.9', { key: school });
    const olderResult = await devplein(server, ['upgrade', older.tarball]);
    expect(olderResult.code, olderResult.stdout + olderResult.stderr).toBe(4);
    expect(olderResult.stderr).toContain('versie 0.0.9 is ouder dan de geïnstalleerde 0.1.0');
    const same = await devplein(server, ['upgrade', good.tarball]);
    expect(same.code).toBe(4);
    expect(same.stderr).toContain('versie 0.1.0 is al geïnstalleerd');
  });

  it('a good signed newer bundle: checked, unpacked where only root can write, then its own upgrade.sh runs', async () => {
    const newer = await makeBundle(path.join(work, 'up-good'), '0.2.0', { key: school });
    const result = await devplein(server, ['upgrade', newer.tarball]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`goed ondertekend door release@school.test (${school.fingerprint})`);
    const ran = /upgrade\.sh van 0\.2\.0 uit (\S+) met --root (\S+)/.exec(result.stdout);
    expect(ran?.[2]).toBe(server);
    // Not the download folder: a private copy under /opt/devplein, gone afterwards.
    expect(ran?.[1]).toMatch(new RegExp(`^${server.replaceAll('.', '\\.')}/opt/devplein/\\.upgrade\\.[A-Za-z0-9]+/devplein-0\\.2\\.0/deploy$`));
    expect(existsSync(path.dirname(path.dirname(ran?.[1] ?? '/x/y')))).toBe(false);
  });
});

describe('devplein release-signers', () => {
  it('lists, adds (then that key\'s bundles pass) and removes, each in the audit log; never the last one', async () => {
    const list = await devplein(server, ['release-signers', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`release@school.test ${school.fingerprint}`);

    const bad = await devplein(server, ['release-signers', 'add', 'iemand ssh-ed25519 geen-sleutel']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('geen publieke sleutel');

    const added = await devplein(server, ['release-signers', 'add', stranger.signer]);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect((await devplein(server, ['release-signers', 'list'])).stdout).toContain(`iemand@elders.test ${stranger.fingerprint}`);
    const again = await devplein(server, ['release-signers', 'add', stranger.signer]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('staat er al');
    const foreign = await makeBundle(path.join(work, 'up-foreign-accepted'), '0.3.0', { key: stranger });
    const upgraded = await devplein(server, ['upgrade', foreign.tarball]);
    expect(upgraded.code, upgraded.stdout + upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toContain('goed ondertekend door iemand@elders.test');

    const removed = await devplein(server, ['release-signers', 'remove', 'release@school.test']);
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    expect(readFileSync(signersFile(server), 'utf8')).not.toContain('release@school.test');
    const last = await devplein(server, ['release-signers', 'remove', stranger.fingerprint]);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('de laatste releaseondertekenaar');
    expect(readFileSync(signersFile(server), 'utf8')).toContain('iemand@elders.test');

    const audit = (await readFile(auditLog(server), 'utf8')).trim().split('\n');
    expect(audit.map((line) => line.split(' ').slice(1).join(' '))).toEqual([
      `beheerder install.sh toegevoegd release@school.test ${school.fingerprint}`,
      `beheerder devplein release-signers toegevoegd iemand@elders.test ${stranger.fingerprint}`,
      `beheerder devplein release-signers verwijderd release@school.test ${school.fingerprint}`,
    ]);
    expect(readFileSync(journal, 'utf8')).toContain(`release-signers: beheerder devplein release-signers verwijderd release@school.test ${school.fingerprint}`);
    // Written by a rename: no temporary file left beside it.
    expect(readdirSync(path.dirname(signersFile(server))).filter((name) => name.startsWith('release-signers'))).toEqual(['release-signers']);
  });
});
