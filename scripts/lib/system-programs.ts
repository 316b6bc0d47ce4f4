import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/*
 * Programs from the operating system that devplein runs with (`npm start`) or is tested with
 * (`npm test`, tests/support/services/system-deps.ts), found on this machine or installed with apt-get
 * when running as root on Debian. Each list is made of the entries below: add one, nothing else
 * changes.
 */

/** A program from the operating system, and the Debian packages that provide it. */
export interface SystemDependency {
  /** Human name, e.g. "Chromium". */
  name: string;
  /** Why it is needed, shown when it is missing. */
  neededFor: string;
  /** Debian packages that provide it. */
  debianPackages: string[];
  /** Where it is on this machine, or undefined when it is missing (or unusable, with `problem`). */
  locate(): { found: string } | { problem: string };
}

/** Finds an executable in PATH (and in `extraDirs`), like `command -v`. */
export function findExecutable(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Debian keeps PostgreSQL's server programs in /usr/lib/postgresql/<major>/bin (newest first). */
export function postgresBinDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry))
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => join(root, major, 'bin'));
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export function systemUserExists(name: string): boolean {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .some((line) => line.startsWith(`${name}:`));
  } catch {
    return false;
  }
}

export function executable(name: string, extraDirs: string[] = []): { found: string } | { problem: string } {
  const found = findExecutable(name, extraDirs);
  return found ? { found } : { problem: `${name} not found in PATH${extraDirs.length ? ` or ${extraDirs.join(', ')}` : ''}` };
}

export function existingPath(path: string): { found: string } | { problem: string } {
  return existsSync(path) ? { found: path } : { problem: `${path} is missing` };
}

// The entries both lists use (their `neededFor` says what the tests use them for).

export const CHROMIUM: SystemDependency = {
    name: 'Chromium',
    neededFor: 'browser tests (playwright-core drives /usr/bin/chromium)',
    debianPackages: ['chromium'],
    locate: () => existingPath('/usr/bin/chromium'),
  };

export const DOCKER_ENGINE: SystemDependency = {
    name: 'Docker engine',
    neededFor: 'the agent container tests (dockerd and the docker CLI; the global setup starts dockerd when it is not running)',
    debianPackages: ['docker.io'],
    locate: () => {
      const dockerd = executable('dockerd', ['/usr/sbin']);
      if ('problem' in dockerd) return dockerd;
      const cli = executable('docker');
      return 'problem' in cli ? cli : { found: `${dockerd.found}, ${cli.found}` };
    },
  };

export const STATIC_BUSYBOX: SystemDependency = {
    name: 'static busybox',
    neededFor: 'the test container images (docker import of a busybox root filesystem)',
    debianPackages: ['busybox-static'],
    locate: () => {
      if (!existsSync('/bin/busybox')) return { problem: '/bin/busybox is missing' };
      // A dynamically linked busybox would not run in an image without libc.
      const head = readFileSync('/bin/busybox').subarray(0, 4096).toString('latin1');
      return head.includes('/ld-linux') || head.includes('/ld-musl') ? { problem: '/bin/busybox is dynamically linked (install busybox-static)' } : { found: '/bin/busybox' };
    },
  };

export const CADDY: SystemDependency = {
    name: 'Caddy',
    neededFor: 'the reverse proxy the agent programs (proxy and container tests)',
    debianPackages: ['caddy'],
    locate: () => executable('caddy'),
  };

export const WIREGUARD_TOOLS: SystemDependency = {
    name: 'WireGuard tools',
    neededFor: 'checking the downloaded VPN configuration (wg-quick strip, wg setconf)',
    debianPackages: ['wireguard-tools'],
    locate: () => executable('wg-quick'),
  };

export const WIREGUARD_GO: SystemDependency = {
    name: 'wireguard-go',
    neededFor: 'a userspace WireGuard interface for the VPN tests (no kernel module needed)',
    debianPackages: ['wireguard-go'],
    locate: () => executable('wireguard-go'),
  };

export const IPROUTE2: SystemDependency = {
    name: 'iproute2',
    neededFor: 'the network namespaces the VPN tests make (ip netns)',
    debianPackages: ['iproute2'],
    locate: () => executable('ip'),
  };

export const MARIADB_SERVER: SystemDependency = {
    name: 'MariaDB server',
    neededFor: 'the throwaway database server the agent makes student databases in (mariadb-install-db, mariadbd)',
    debianPackages: ['mariadb-server'],
    locate: () => {
      const server = executable('mariadbd', ['/usr/sbin']);
      if ('problem' in server) return server;
      const install = executable('mariadb-install-db');
      return 'problem' in install ? install : { found: `${server.found}, ${install.found}` };
    },
  };

export const IPTABLES: SystemDependency = {
    name: 'iptables',
    neededFor: 'the firewall rules the agent sets on the WireGuard interface (peers reach only the allowed networks)',
    debianPackages: ['iptables'],
    locate: () => executable('iptables', ['/usr/sbin']),
  };

// What Debian's recommends brought and devplein uses. apt-get installs no recommends here (they
// pulled in a kernel image, an initramfs and printer tools), so each is named on its own.

export const LIBERATION_FONTS: SystemDependency = {
    name: 'Liberation fonts',
    neededFor: 'text in the thumbnails as sites set it (stand-ins with the metrics of Arial, Helvetica, Times and Courier; Chromium recommends them)',
    debianPackages: ['fonts-liberation'],
    locate: () => existingPath('/usr/share/fonts/truetype/liberation'),
  };

export const CA_CERTIFICATES: SystemDependency = {
    name: 'CA certificates',
    neededFor: 'image pulls by dockerd and git clones over HTTPS (docker.io recommends them)',
    debianPackages: ['ca-certificates'],
    locate: () => existingPath('/etc/ssl/certs/ca-certificates.crt'),
  };

export const GIT: SystemDependency = {
    name: 'git',
    neededFor: "the agent's git deploys (the git runner runs git; docker.io recommends it)",
    debianPackages: ['git'],
    locate: () => executable('git'),
  };

export const OPENSSH_CLIENT: SystemDependency = {
    name: 'OpenSSH client',
    neededFor: 'git deploys with a deploy key (git over ssh; git recommends it)',
    debianPackages: ['openssh-client'],
    locate: () => executable('ssh'),
  };

export const XZ_UTILS: SystemDependency = {
    name: 'xz',
    neededFor: 'dockerd unpacking xz-compressed image archives (docker load, docker import; docker.io recommends it)',
    debianPackages: ['xz-utils'],
    locate: () => executable('xz'),
  };

export const KMOD: SystemDependency = {
    name: 'kmod',
    neededFor: 'modprobe, with which dockerd and the kernel load overlay, bridge and netfilter modules (a minimal Debian lacks it; the kernel image brought it)',
    debianPackages: ['kmod'],
    locate: () => executable('modprobe', ['/usr/sbin', '/sbin']),
  };

/** Whether the running kernel enforces AppArmor (what dockerd itself looks at). */
function appArmorKernel(): boolean {
  try {
    return readFileSync('/sys/module/apparmor/parameters/enabled', 'utf8').startsWith('Y');
  } catch {
    return false;
  }
}

export const APPARMOR: SystemDependency = {
    name: 'AppArmor parser',
    neededFor: "containers on a kernel with AppArmor: Debian 12's dockerd (20.10) loads its docker-default profile with apparmor_parser and refuses every container start without it (docker.io recommends it)",
    debianPackages: ['apparmor'],
    locate: () => (appArmorKernel() ? executable('apparmor_parser', ['/usr/sbin', '/sbin']) : { found: 'not needed (this kernel has no AppArmor)' }),
  };

export const OPENSSL: SystemDependency = {
    name: 'OpenSSL',
    neededFor: 'test certificates for the mTLS link to the host agent',
    debianPackages: ['openssl'],
    locate: () => executable('openssl'),
  };

/** What `npm start` runs with: every part of the main job (each missing one is one warning). */
export const startSystemDependencies: SystemDependency[] = [
  { ...DOCKER_ENGINE, neededFor: 'the students’ containers (dockerd; npm start starts it when it is not running)' },
  { ...STATIC_BUSYBOX, neededFor: "the demo image of 'Statische site' (no registry needed)" },
  { ...CADDY, neededFor: 'routing the student sites' },
  { ...MARIADB_SERVER, neededFor: 'the students’ databases' },
  { ...CHROMIUM, neededFor: 'the thumbnails of the websites wall' },
  { ...WIREGUARD_GO, neededFor: 'the VPN (a userspace WireGuard interface)' },
  { ...WIREGUARD_TOOLS, neededFor: 'the VPN (wg)' },
  { ...IPROUTE2, neededFor: 'the VPN interface (ip)' },
  { ...IPTABLES, neededFor: 'the VPN firewall and the containers’ network rules' },
  { ...OPENSSL, neededFor: 'the development certificates of the agent link' },
  APPARMOR,
  KMOD,
  XZ_UTILS,
  CA_CERTIFICATES,
  LIBERATION_FONTS,
  GIT,
  OPENSSH_CLIENT,
];

export interface EnsureOptions {
  /** Where progress goes (default: console.log). */
  log?: (line: string) => void;
  /** How packages get installed; default apt-get, only as root where it exists (a unit test gives its own). */
  installer?: PackageInstaller;
  /** Only report, never install (TEST_SKIP_SYSTEM_DEPS=1 sets this for the tests). */
  skipInstall?: boolean;
}

/** Thrown when something is missing and cannot be installed here; the message names the packages. */
export class MissingSystemDependencies extends Error {}

export interface PackageInstaller {
  /** Whether it can install here (root, with apt-get). */
  available: boolean;
  install(packages: string[], log: (line: string) => void): void;
}

/**
 * apt-get's arguments that install `packages`, without their recommends: on a fresh Debian 12
 * those brought a kernel image, an initramfs and printer tools. What devplein needs of them is
 * named in the lists above.
 */
export function aptInstallArguments(packages: string[]): string[] {
  return ['install', '-y', '--no-install-recommends', ...packages];
}

/** Runs apt-get with these arguments, or throws. */
export type AptRunner = (args: string[], log: (line: string) => void) => void;

/** apt-get as root on Debian: one `apt-get update`, then one install. */
export const aptInstaller = (run: AptRunner = apt): PackageInstaller => ({
  available: isRoot() && findExecutable('apt-get') !== undefined,
  install: (packages, log) => {
    run(['update'], log);
    run(aptInstallArguments(packages), log);
  },
});

function missingOf(dependencies: SystemDependency[]): Array<{ dependency: SystemDependency; problem: string }> {
  return dependencies.flatMap((dependency) => {
    const located = dependency.locate();
    return 'problem' in located ? [{ dependency, problem: located.problem }] : [];
  });
}

function describeMissing(missing: Array<{ dependency: SystemDependency; problem: string }>): string {
  return missing.map(({ dependency, problem }) => `  - ${dependency.name} (${dependency.neededFor}): ${problem}`).join('\n');
}

function apt(args: string[], log: (line: string) => void): void {
  log(`$ apt-get ${args.join(' ')}`);
  const result = spawnSync('apt-get', args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} exited with code ${result.status ?? result.signal}`);
}

/**
 * Makes sure every dependency is present. Missing ones are installed with apt-get when this
 * runs as root on Debian (one `apt-get update`, then one install); otherwise it throws a
 * MissingSystemDependencies naming the packages to install.
 */
export function ensureSystemDependencies(dependencies: SystemDependency[], options: EnsureOptions = {}): void {
  const log = options.log ?? ((line: string) => console.log(line));
  const missing: Array<{ dependency: SystemDependency; problem: string }> = [];
  for (const dependency of dependencies) {
    const located = dependency.locate();
    if ('found' in located) log(`ok       ${dependency.name}: ${located.found}`);
    else missing.push({ dependency, problem: located.problem });
  }
  if (missing.length === 0) return;

  const packages = [...new Set(missing.flatMap(({ dependency }) => dependency.debianPackages))];
  const installCommand = `apt-get ${aptInstallArguments(packages).join(' ')}`;
  if (options.skipInstall) {
    log(`missing  (TEST_SKIP_SYSTEM_DEPS=1, not installing; tests that need them will fail):\n${describeMissing(missing)}`);
    return;
  }
  const installer = options.installer ?? aptInstaller();
  if (!installer.available) {
    throw new MissingSystemDependencies(
      `Missing system programs:\n${describeMissing(missing)}\n` +
        `Install them (as root on Debian/Ubuntu: ${installCommand}) and try again.`,
    );
  }
  log(`missing  ${missing.map(({ dependency }) => dependency.name).join(', ')}: installing ${packages.join(' ')} with apt-get`);
  installer.install(packages, log);
  const stillMissing = missingOf(dependencies);
  if (stillMissing.length > 0) {
    throw new MissingSystemDependencies(`Still missing after ${installCommand}:\n${describeMissing(stillMissing)}`);
  }
  for (const { dependency } of missing) {
    const located = dependency.locate();
    if ('found' in located) log(`ok       ${dependency.name}: ${located.found} (installed)`);
  }
}

