import { pathToFileURL } from 'node:url';
import {
  APPARMOR,
  CADDY,
  CHROMIUM,
  DOCKER_ENGINE,
  ensureSystemDependencies,
  executable,
  existingPath,
  GIT,
  IPROUTE2,
  IPTABLES,
  isRoot,
  KMOD,
  LIBERATION_FONTS,
  MARIADB_SERVER,
  OPENSSH_CLIENT,
  OPENSSL,
  postgresBinDirs,
  STATIC_BUSYBOX,
  systemUserExists,
  WIREGUARD_GO,
  WIREGUARD_TOOLS,
  type SystemDependency,
} from '../../../scripts/lib/system-programs.ts';

export { ensureSystemDependencies, findExecutable, MissingSystemDependencies, postgresBinDirs, type SystemDependency } from '../../../scripts/lib/system-programs.ts';

/** What `npm test` needs from the operating system (scripts/lib/system-programs.ts has the shared entries). */
export const testSystemDependencies: SystemDependency[] = [
  CHROMIUM,
  { ...LIBERATION_FONTS, neededFor: 'text in the screenshots and thumbnails as the test pages set it' },
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
  DOCKER_ENGINE,
  APPARMOR,
  KMOD,
  {
    name: 'Docker registry',
    neededFor: 'a local image registry to test image pulls against (nothing is pulled from the internet)',
    debianPackages: ['docker-registry'],
    locate: () => executable('docker-registry'),
  },
  STATIC_BUSYBOX,
  CADDY,
  {
    name: 'Dropbear SSH server',
    neededFor: 'the SSH image of the SSH access tests (a real login as student)',
    debianPackages: ['dropbear-bin'],
    locate: () => existingPath('/usr/sbin/dropbear'),
  },
  { ...OPENSSH_CLIENT, neededFor: 'logging in to a container over SSH in the SSH access tests, and git deploys with a deploy key' },
  { ...GIT, neededFor: 'the test git host and the git deploy tests (tests/support/services/git-host.ts)' },
  {
    name: 'OpenSSH server',
    neededFor: 'the test git host: deploy-key clones over SSH to a git-shell login (tests/support/services/git-host.ts)',
    debianPackages: ['openssh-server'],
    locate: () => existingPath('/usr/sbin/sshd'),
  },
  WIREGUARD_TOOLS,
  WIREGUARD_GO,
  IPROUTE2,
  MARIADB_SERVER,
  {
    name: 'MariaDB client',
    neededFor: 'connecting as a student from the "home" network namespace through the VPN',
    debianPackages: ['mariadb-client'],
    locate: () => executable('mariadb'),
  },
  IPTABLES,
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
  OPENSSL,
  {
    name: 'strace',
    neededFor: 'recording every command line of install, upgrade, backup and restore (secrets-on-command-lines test)',
    debianPackages: ['strace'],
    locate: () => executable('strace'),
  },
  {
    name: 'ShellCheck',
    neededFor: 'linting deploy/install.sh (install-script test)',
    debianPackages: ['shellcheck'],
    locate: () => executable('shellcheck'),
  },
];

// `npx tsx tests/support/services/system-deps.ts`: check (and install as root) by hand.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    ensureSystemDependencies(testSystemDependencies, { skipInstall: process.env.TEST_SKIP_SYSTEM_DEPS === '1' });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
