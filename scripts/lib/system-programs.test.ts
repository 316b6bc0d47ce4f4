import { describe, expect, it } from 'vitest';
import { aptInstaller, ensureSystemDependencies, MissingSystemDependencies, startSystemDependencies, type PackageInstaller, type SystemDependency } from './system-programs.ts';

/** A program that is there once `installed` holds its package. */
function program(name: string, debianPackage: string, installed: Set<string>): SystemDependency {
  return {
    name,
    neededFor: `${name} things`,
    debianPackages: [debianPackage],
    locate: () => (installed.has(debianPackage) ? { found: `/usr/bin/${name}` } : { problem: `${name} not found` }),
  };
}

describe('ensureSystemDependencies', () => {
  it('installs what is missing in one go where it can, and says what it installed', () => {
    const installed = new Set(['caddy']);
    const calls: string[][] = [];
    const installer: PackageInstaller = { available: true, install: (packages) => (calls.push(packages), packages.forEach((name) => installed.add(name))) };
    const lines: string[] = [];
    ensureSystemDependencies([program('caddy', 'caddy', installed), program('dockerd', 'docker.io', installed), program('mariadbd', 'mariadb-server', installed)], { installer, log: (line) => lines.push(line) });
    expect(calls).toEqual([['docker.io', 'mariadb-server']]);
    expect(lines.filter((line) => line.endsWith('(installed)'))).toEqual(['ok       dockerd: /usr/bin/dockerd (installed)', 'ok       mariadbd: /usr/bin/mariadbd (installed)']);
  });

  it('where it cannot install, names every missing program, why, and the one command', () => {
    const installed = new Set<string>();
    const installer: PackageInstaller = { available: false, install: () => expect.unreachable() };
    const attempt = () => ensureSystemDependencies([program('dockerd', 'docker.io', installed), program('caddy', 'caddy', installed)], { installer, log: () => undefined });
    expect(attempt).toThrow(MissingSystemDependencies);
    expect(attempt).toThrow(/dockerd \(dockerd things\): dockerd not found[\s\S]*apt-get install -y --no-install-recommends docker\.io caddy/);
  });

  it('says when an install did not bring a program', () => {
    const installer: PackageInstaller = { available: true, install: () => undefined };
    expect(() => ensureSystemDependencies([program('caddy', 'caddy', new Set())], { installer, log: () => undefined })).toThrow(/Still missing after apt-get install -y --no-install-recommends caddy/);
  });

  it('apt-get installs without recommends (they brought a kernel image, an initramfs and printer tools)', () => {
    const calls: string[][] = [];
    aptInstaller((args) => calls.push(args)).install(['docker.io', 'chromium'], () => undefined);
    expect(calls).toEqual([['update'], ['install', '-y', '--no-install-recommends', 'docker.io', 'chromium']]);
  });

  it('npm start names what the recommends brought that it uses', () => {
    expect(startSystemDependencies.flatMap((dependency) => dependency.debianPackages)).toEqual(
      expect.arrayContaining(['fonts-liberation', 'git', 'openssh-client', 'xz-utils', 'ca-certificates', 'apparmor', 'kmod']),
    );
  });

  it('npm start asks for every part of the main job', () => {
    expect(startSystemDependencies.flatMap((dependency) => dependency.debianPackages)).toEqual(
      expect.arrayContaining(['docker.io', 'busybox-static', 'caddy', 'mariadb-server', 'chromium', 'wireguard-go']),
    );
  });
});
