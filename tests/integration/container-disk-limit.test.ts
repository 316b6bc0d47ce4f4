/**
 * The disk limit of project containers (AGENT_CONTAINER_DISK_LIMIT, issue 16). Docker limits a
 * container's writable layer only on storage that can: overlay2 on XFS mounted with project quota
 * (pquota), what a dev server uses (docs/operations.md, "Student containers"), or the btrfs driver (subvolume
 * qgroups). The shared test engine's data-root is on ext4, so each case here makes a file-system
 * image, loop-mounts it and runs a private dockerd with its data-root there; the agent's Docker
 * driver makes project containers on it exactly as on a dev server. A student who writes past the
 * limit gets "disk full" inside the container; the engine, the host and the other containers
 * carry on. On the shared (ext4) engine the same setting must fail with a message that says what
 * to do.
 *
 * XFS needs a kernel with XFS quota (CONFIG_XFS_QUOTA; Debian's kernels have it, the VMs these
 * tests were written on do not: "XFS (loop0): quota support not available in this kernel"). A
 * case whose kernel or tools cannot is skipped with that reason; at least one case must run.
 * Needs root (mount, losetup, dockerd), xfsprogs and btrfs-progs. Mounts, loop devices and
 * engines are removed in afterAll, also when a test failed.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewContainer } from '../../host-agent/src/drivers/docker/docker-driver.ts';
import { DockerodeDriver, diskLimitProblem } from '../../host-agent/src/drivers/docker/dockerode-driver.ts';
import { ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../support/docker.ts';
import { type PrivateDockerd, startPrivateDockerd } from '../support/private-docker.ts';
import { findExecutable } from '../support/system-deps.ts';

const execFileAsync = promisify(execFile);
const suffix = randomSuffix();
const LIMIT = 64 * 1024 * 1024;
const limits = { memoryBytes: 64 * 1024 * 1024, nanoCpus: 500_000_000, pids: 64 };

function spec(name: string, projectId: number, image: string): NewContainer {
  return { projectId, name, domain: `${name}.dev.test`, image, ownerUserId: 1, ssh: false, wordpress: false, limits, capabilities: [] };
}

/** Undoes a loop mount and its loop device (mount -o loop sets autoclear; losetup -d covers the rest). */
async function unmount(point: string, image: string): Promise<void> {
  await execFileAsync('umount', [point]).catch(() => execFileAsync('umount', ['-l', point]).catch(() => undefined));
  const { stdout } = await execFileAsync('losetup', ['-j', image]).catch(() => ({ stdout: '' }));
  for (const device of stdout.split('\n').map((line) => line.split(':')[0]).filter(Boolean)) {
    await execFileAsync('losetup', ['-d', device ?? '']).catch(() => undefined);
  }
}

interface Backend {
  name: string;
  /** Makes the file system in `image` and mounts it on `mountPoint`; a string says why it cannot here. */
  mount(image: string, mountPoint: string): Promise<string | undefined>;
  storageDriver?: string;
}

const backends: Backend[] = [
  {
    name: 'overlay2 on XFS mounted with pquota (as on a dev server)',
    async mount(image, mountPoint) {
      const mkfs = findExecutable('mkfs.xfs', ['/usr/sbin', '/sbin']);
      if (!mkfs) return 'mkfs.xfs is missing: apt-get install -y xfsprogs';
      await execFileAsync(mkfs, ['-q', image]);
      try {
        await execFileAsync('mount', ['-o', 'loop,pquota', image, mountPoint]);
        return undefined;
      } catch (error) {
        const { stdout } = await execFileAsync('dmesg').catch(() => ({ stdout: '' }));
        if (/quota support not available/.test(stdout.split('\n').slice(-20).join('\n'))) return 'this kernel has no XFS quota support (CONFIG_XFS_QUOTA)';
        throw error;
      }
    },
  },
  {
    name: 'the btrfs storage driver',
    storageDriver: 'btrfs',
    async mount(image, mountPoint) {
      const mkfs = findExecutable('mkfs.btrfs', ['/usr/sbin', '/sbin', '/usr/bin']);
      if (!mkfs) return 'mkfs.btrfs is missing: apt-get install -y btrfs-progs';
      await execFileAsync(mkfs, ['-q', image]);
      await execFileAsync('mount', ['-o', 'loop', image, mountPoint]);
      return undefined;
    },
  },
];

const proven: string[] = [];
const unavailable: string[] = [];

describe.each(backends)('a disk limit on $name', (backend) => {
  let workDir: string | undefined;
  let mountPoint: string | undefined;
  let engine: PrivateDockerd | undefined;
  let driver: DockerodeDriver | undefined;
  let webImage: string;
  let skipReason: string | undefined;

  beforeAll(async () => {
    requireDockerEngine();
    if (process.getuid?.() !== 0) throw new Error('the disk limit test needs root (mount, losetup, a private dockerd)');
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-disk-limit-'));
    const image = path.join(workDir, 'fs.img');
    mountPoint = path.join(workDir, 'data-root');
    await mkdir(mountPoint);
    // Sparse: takes only what the engine writes (XFS wants at least 300 MB).
    await execFileAsync('truncate', ['-s', '512M', image]);
    skipReason = await backend.mount(image, mountPoint);
    if (skipReason) {
      unavailable.push(`${backend.name}: ${skipReason}`);
      return;
    }
    engine = await startPrivateDockerd({ dataRoot: mountPoint, ...(backend.storageDriver ? { storageDriver: backend.storageDriver } : {}) });
    webImage = await ensureWebImage(engine.host);
    driver = new DockerodeDriver(engine.docker, {
      network: `devplein-disk-${suffix}`,
      httpPort: 80,
      publishAddress: '127.0.0.1',
      sshBindAddress: '127.0.0.1',
      diskLimitBytes: LIMIT,
    });
    await driver.ensureNetwork();
  });

  afterAll(async () => {
    try {
      await engine?.destroy();
    } finally {
      if (workDir && mountPoint) {
        await unmount(mountPoint, path.join(workDir, 'fs.img'));
        await rm(workDir, { recursive: true, force: true });
      }
    }
  });

  it('stops writes past the limit inside the container; the engine and other containers carry on', async (context) => {
    if (skipReason) context.skip(skipReason);
    if (!engine || !driver) throw new Error('no engine');
    const info = (await engine.docker.info()) as { Driver?: string; DriverStatus?: Array<[string, string]> };
    expect(diskLimitProblem(info)).toBeUndefined();

    const filler = await driver.create(spec(`filler-${suffix}`, 1, webImage));
    const inspect = await engine.docker.getContainer(filler.id).inspect();
    expect(inspect.HostConfig.StorageOpt).toEqual({ size: String(LIMIT) });

    // Under the limit: fine.
    const small = await driver.exec(filler.id, ['sh', '-c', 'dd if=/dev/zero of=/small bs=1M count=16 2>&1']);
    expect(small.exitCode, small.stdout).toBe(0);
    // Past it: the write fails in the container, and what landed stays under the limit.
    const big = await driver.exec(filler.id, ['sh', '-c', 'dd if=/dev/zero of=/big bs=1M count=200 2>&1; echo "dd-exit=$?"; sync; du -sk /big']);
    expect(big.stdout).toMatch(/No space left on device|Disk quota exceeded/);
    expect(big.stdout).not.toContain('dd-exit=0');
    const writtenKb = Number(/(\d+)\s+\/big/.exec(big.stdout)?.[1]);
    expect(writtenKb * 1024).toBeLessThanOrEqual(LIMIT);

    // The engine and a neighbour are unaffected: a new container starts and writes.
    expect(await engine.answers()).toBe(true);
    const neighbour = await driver.create(spec(`neighbour-${suffix}`, 2, webImage));
    const write = await driver.exec(neighbour.id, ['sh', '-c', 'dd if=/dev/zero of=/data bs=1M count=16 2>&1 && cat /www/index.html']);
    expect(write.exitCode, write.stdout).toBe(0);
    expect(write.stdout).toContain('devplein test page');
    // The full container still runs, and gets its space back when the student deletes the file.
    const freed = await driver.exec(filler.id, ['sh', '-c', 'rm /big && dd if=/dev/zero of=/again bs=1M count=16 2>&1']);
    expect(freed.exitCode, freed.stdout).toBe(0);
    proven.push(backend.name);
  });
});

describe('the disk limit proof', () => {
  it('ran on at least one storage that enforces it', () => {
    expect(proven, `no storage could enforce the limit here:\n${unavailable.join('\n')}`).not.toEqual([]);
  });
});

describe('a disk limit on an engine that cannot enforce it', () => {
  it('fails the create with a message naming the setting and what Docker needs', async (context) => {
    const shared = testDocker();
    const info = (await shared.info()) as { Driver?: string; DriverStatus?: Array<[string, string]> };
    // Only meaningful where the shared engine cannot (ext4 here and in CI).
    if (diskLimitProblem(info) === undefined) context.skip();
    const image = await ensureWebImage();
    const sharedNetwork = `devplein-disk-shared-${suffix}`;
    const onShared = new DockerodeDriver(shared, { network: sharedNetwork, httpPort: 80, publishAddress: '127.0.0.1', sshBindAddress: '127.0.0.1', diskLimitBytes: LIMIT });
    try {
      await expect(onShared.create(spec(`refused-${suffix}`, 3, image))).rejects.toMatchObject({
        kind: 'failed-precondition',
        message: expect.stringMatching(/AGENT_CONTAINER_DISK_LIMIT.*XFS mounted with pquota/),
      });
      expect(await shared.listContainers({ all: true, filters: { name: [`refused-${suffix}`] } })).toEqual([]);
    } finally {
      await shared.getContainer(`refused-${suffix}`).remove({ force: true }).catch(() => undefined);
      await shared.getNetwork(sharedNetwork).remove().catch(() => undefined);
    }
  });
});
