import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A program from the operating system that the tests need. The list below grows with the
 * issues (Docker, Caddy, MariaDB, WireGuard come later): add an entry, nothing else changes.
 */
export interface SystemDependency {
  /** Human name, e.g. "Chromium". */
  name: string;
  /** Why the tests need it, shown when it is missing. */
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

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function systemUserExists(name: string): boolean {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .some((line) => line.startsWith(`${name}:`));
  } catch {
    return false;
  }
}

function executable(name: string, extraDirs: string[] = []): { found: string } | { problem: string } {
  const found = findExecutable(name, extraDirs);
  return found ? { found } : { problem: `${name} not found in PATH${extraDirs.length ? ` or ${extraDirs.join(', ')}` : ''}` };
}

/** What `npm test` needs from the operating system. */
export const testSystemDependencies: SystemDependency[] = [
  {
    name: 'Chromium',
    neededFor: 'browser tests (playwright-core drives /usr/bin/chromium)',
    debianPackages: ['chromium'],
    locate: () => (existsSync('/usr/bin/chromium') ? { found: '/usr/bin/chromium' } : { problem: '/usr/bin/chromium is missing' }),
  },
  {
    name: 'PostgreSQL server',
    neededFor: 'the throwaway database cluster of the tests (initdb, pg_ctl)',
    debianPackages: ['postgresql'],
    locate: () => {
      const dirs = postgresBinDirs();
      const initdb = executable('initdb', dirs);
      if ('problem' in initdb) return initdb;
      const pgCtl = executable('pg_ctl', dirs);
      if ('problem' in pgCtl) return pgCtl;
      // initdb refuses to run as root: the tests run it as the postgres user, which the package creates.
      if (isRoot() && !systemUserExists('postgres')) return { problem: 'running as root but there is no "postgres" system user' };
      return { found: `${initdb.found}, ${pgCtl.found}` };
    },
  },
  {
    name: 'Docker engine',
    neededFor: 'the agent container tests (dockerd and the docker CLI; the global setup starts dockerd when it is not running)',
    debianPackages: ['docker.io'],
    locate: () => {
      const dockerd = executable('dockerd', ['/usr/sbin']);
      if ('problem' in dockerd) return dockerd;
      const cli = executable('docker');
      return 'problem' in cli ? cli : { found: `${dockerd.found}, ${cli.found}` };
    },
  },
  {
    name: 'Docker registry',
    neededFor: 'a local image registry to test image pulls against (nothing is pulled from the internet)',
    debianPackages: ['docker-registry'],
    locate: () => executable('docker-registry'),
  },
  {
    name: 'static busybox',
    neededFor: 'the test container images (docker import of a busybox root filesystem)',
    debianPackages: ['busybox-static'],
    locate: () => {
      if (!existsSync('/bin/busybox')) return { problem: '/bin/busybox is missing' };
      // A dynamically linked busybox would not run in an image without libc.
      const head = readFileSync('/bin/busybox').subarray(0, 4096).toString('latin1');
      return head.includes('/ld-linux') || head.includes('/ld-musl') ? { problem: '/bin/busybox is dynamically linked (install busybox-static)' } : { found: '/bin/busybox' };
    },
  },
  {
    name: 'Caddy',
    neededFor: 'the reverse proxy the agent programs (proxy and container tests)',
    debianPackages: ['caddy'],
    locate: () => executable('caddy'),
  },
  {
    name: 'Dropbear SSH server',
    neededFor: 'the SSH image of the SSH access tests (a real login as student)',
    debianPackages: ['dropbear-bin'],
    locate: () => (existsSync('/usr/sbin/dropbear') ? { found: '/usr/sbin/dropbear' } : { problem: '/usr/sbin/dropbear is missing' }),
  },
  {
    name: 'OpenSSH client',
    neededFor: 'logging in to a container over SSH in the SSH access tests',
    debianPackages: ['openssh-client'],
    locate: () => executable('ssh'),
  },
  {
    name: 'WireGuard tools',
    neededFor: 'checking the downloaded VPN configuration (wg-quick strip, wg setconf)',
    debianPackages: ['wireguard-tools'],
    locate: () => executable('wg-quick'),
  },
  {
    name: 'wireguard-go',
    neededFor: 'a userspace WireGuard interface for the VPN tests (no kernel module needed)',
    debianPackages: ['wireguard-go'],
    locate: () => executable('wireguard-go'),
  },
  {
    name: 'iproute2',
    neededFor: 'the network namespaces the VPN tests make (ip netns)',
    debianPackages: ['iproute2'],
    locate: () => executable('ip'),
  },
  {
    name: 'MariaDB server',
    neededFor: 'the throwaway database server the agent makes student databases in (mariadb-install-db, mariadbd)',
    debianPackages: ['mariadb-server'],
    locate: () => {
      const server = executable('mariadbd', ['/usr/sbin']);
      if ('problem' in server) return server;
      const install = executable('mariadb-install-db');
      return 'problem' in install ? install : { found: `${server.found}, ${install.found}` };
    },
  },
  {
    name: 'MariaDB client',
    neededFor: 'connecting as a student from the "home" network namespace through the VPN',
    debianPackages: ['mariadb-client'],
    locate: () => executable('mariadb'),
  },
  {
    name: 'iptables',
    neededFor: 'the firewall rules the agent sets on the WireGuard interface (peers reach only the allowed networks)',
    debianPackages: ['iptables'],
    locate: () => executable('iptables', ['/usr/sbin']),
  },
  {
    name: 'XFS tools',
    neededFor: "the container disk limit test (a private Docker engine on a loop-mounted XFS with project quota, which Docker's size limit needs)",
    debianPackages: ['xfsprogs'],
    locate: () => executable('mkfs.xfs', ['/usr/sbin', '/sbin']),
  },
  {
    name: 'btrfs tools',
    neededFor: 'the container disk limit test on the btrfs storage driver (where the kernel has no XFS quota support)',
    debianPackages: ['btrfs-progs'],
    locate: () => executable('mkfs.btrfs', ['/usr/sbin', '/sbin']),
  },
  {
    name: 'PHP (command line)',
    neededFor: "running deploy/phpmyadmin/devplein-signon.php (phpMyAdmin's single sign-on script) in its test",
    debianPackages: ['php-cli'],
    locate: () => executable('php'),
  },
  {
    name: 'systemd-analyze',
    neededFor: 'checking the systemd units in deploy/ (deploy-files test)',
    debianPackages: ['systemd'],
    locate: () => executable('systemd-analyze'),
  },
  {
    name: 'OpenSSL',
    neededFor: 'test certificates for the mTLS link to the host agent',
    debianPackages: ['openssl'],
    locate: () => executable('openssl'),
  },
];

export interface EnsureOptions {
  /** Where progress goes (default: console.log). */
  log?: (line: string) => void;
  /** Only report, never install (TEST_SKIP_SYSTEM_DEPS=1 sets this). */
  skipInstall?: boolean;
}

/** Thrown when something is missing and cannot be installed here; the message names the packages. */
export class MissingSystemDependencies extends Error {}

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
export function ensureSystemDependencies(dependencies: SystemDependency[] = testSystemDependencies, options: EnsureOptions = {}): void {
  const log = options.log ?? ((line: string) => console.log(line));
  const missing: Array<{ dependency: SystemDependency; problem: string }> = [];
  for (const dependency of dependencies) {
    const located = dependency.locate();
    if ('found' in located) log(`ok       ${dependency.name}: ${located.found}`);
    else missing.push({ dependency, problem: located.problem });
  }
  if (missing.length === 0) return;

  const packages = [...new Set(missing.flatMap(({ dependency }) => dependency.debianPackages))];
  const installCommand = `apt-get install -y ${packages.join(' ')}`;
  if (options.skipInstall) {
    log(`missing  (TEST_SKIP_SYSTEM_DEPS=1, not installing; tests that need them will fail):\n${describeMissing(missing)}`);
    return;
  }
  const canInstall = isRoot() && findExecutable('apt-get') !== undefined;
  if (!canInstall) {
    throw new MissingSystemDependencies(
      `Missing system programs:\n${describeMissing(missing)}\n` +
        `Install them (as root on Debian/Ubuntu: ${installCommand}) and run the tests again.`,
    );
  }
  log(`missing  ${missing.map(({ dependency }) => dependency.name).join(', ')}: installing ${packages.join(' ')} with apt-get`);
  apt(['update'], log);
  apt(['install', '-y', ...packages], log);
  const stillMissing = missingOf(dependencies);
  if (stillMissing.length > 0) {
    throw new MissingSystemDependencies(`Still missing after ${installCommand}:\n${describeMissing(stillMissing)}`);
  }
  for (const { dependency } of missing) {
    const located = dependency.locate();
    if ('found' in located) log(`ok       ${dependency.name}: ${located.found} (installed)`);
  }
}

// `npx tsx tests/support/system-deps.ts`: check (and install as root) by hand.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    ensureSystemDependencies(testSystemDependencies, { skipInstall: process.env.TEST_SKIP_SYSTEM_DEPS === '1' });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
