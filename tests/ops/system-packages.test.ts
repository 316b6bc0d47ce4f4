/**
 * What `npm start` and `npm test` install on a fresh machine (issue 33): the exact apt-get
 * arguments scripts/lib/system-programs.ts builds, simulated (`apt-get -s`) on a fresh
 * `debootstrap --variant=minbase` tree of Debian 12 and of Debian 13. Without
 * --no-install-recommends that brought a Linux kernel image, an initramfs and printer tools;
 * what the recommends brought that devplein uses is named in the lists and must still come in.
 *
 * In `npm run test:ops`, not in `npm test`: it makes the trees with debootstrap the first time
 * (root, deb.debian.org, a few minutes; cached in /var/cache/devplein-tests afterwards), then
 * takes about a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptInstallArguments, startSystemDependencies, type SystemDependency } from '../../scripts/lib/system-programs.ts';
import { AptSimulation } from '../support/fakes/apt-simulation.ts';
import { minbaseTree, type DebianSuite } from '../support/stacks/debian-tree.ts';
import { testSystemDependencies } from '../support/services/system-deps.ts';

/** A kernel, its boot image and firmware, and printing (libcups2 is only the client library Chromium links against). */
const UNWANTED = [/^linux-image-/, /^initramfs-/, /^firmware-linux/, /^cups(-|$)/, /^printer-driver-/, /^system-config-printer/, /^python3-cups/, /^foomatic-/, /^hplip/];
const unwanted = (packages: string[]) => packages.filter((name) => UNWANTED.some((pattern) => pattern.test(name)));

/** Named because the recommends brought them and devplein uses them. */
const NAMED_RECOMMENDS = ['fonts-liberation', 'git', 'xz-utils', 'ca-certificates', 'openssh-client'];

const debianPackages = (list: SystemDependency[]) => [...new Set(list.flatMap((dependency) => dependency.debianPackages))];
const lists = { 'npm start': debianPackages(startSystemDependencies), 'npm test': debianPackages(testSystemDependencies) };

describe.each<DebianSuite>(['bookworm', 'trixie'])('on a fresh Debian (%s)', (suite) => {
  let apt: AptSimulation;
  beforeAll(async () => {
    apt = await AptSimulation.of(await minbaseTree(suite));
  });
  afterAll(() => apt?.close());

  it.each(Object.entries(lists))('%s installs no kernel, initramfs or printing package, and what it names', async (list, packages) => {
    const installed = await apt.install(aptInstallArguments(packages));
    // The same packages with their recommends: shows the check sees what it is there to catch.
    const withRecommends = await apt.install(['install', '-y', ...packages]);
    console.log(`${suite}, ${list}: ${installed.length} packages (${withRecommends.length} with recommends) for ${packages.length} named`);

    expect(unwanted(withRecommends)).not.toEqual([]);
    expect(unwanted(installed)).toEqual([]);
    const present = new Set([...(await apt.installed()), ...installed]);
    expect(packages.filter((name) => !present.has(name))).toEqual([]);
    if (list === 'npm start') expect(NAMED_RECOMMENDS.filter((name) => !present.has(name))).toEqual([]);
  });
});
