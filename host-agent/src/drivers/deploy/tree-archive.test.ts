import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarEntries } from '../ssh/authorized-keys.ts';
import { checkKeepPath, checkWebRoot, DeployError, linkStaysInside, packTree, planTree } from './tree-archive.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'devplein-tree-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const limits = { maxFiles: 100, maxBytes: 1024 * 1024 };

describe('planTree and packTree', () => {
  it('packs files and folders under the staging name, owned by the web user, without .git', async () => {
    await mkdir(join(dir, '.git/objects'), { recursive: true });
    await writeFile(join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(dir, 'css'));
    await writeFile(join(dir, 'index.html'), '<h1>Hallo</h1>\n');
    await writeFile(join(dir, 'css/site.css'), 'body{}\n');
    await writeFile(join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o775 });
    await symlink('index.html', join(dir, 'home.html'));
    const plan = await planTree(dir, limits);
    expect(plan).toMatchObject({ files: 3, bytes: 15 + 7 + 10, skipped: [] });
    const entries = await tarEntries(packTree(dir, plan, 'www.devplein-next-1', { uid: 1000, gid: 1001 }));
    expect(entries.map((entry) => [entry.name, entry.type, entry.mode, entry.uid, entry.gid])).toEqual([
      ['www.devplein-next-1/', 'directory', 0o755, 1000, 1001],
      ['www.devplein-next-1/css/', 'directory', 0o755, 1000, 1001],
      ['www.devplein-next-1/css/site.css', 'file', 0o644, 1000, 1001],
      ['www.devplein-next-1/home.html', 'symlink', 0o777, 1000, 1001],
      ['www.devplein-next-1/index.html', 'file', 0o644, 1000, 1001],
      ['www.devplein-next-1/run.sh', 'file', 0o755, 1000, 1001],
    ]);
    expect(entries.find((entry) => entry.name.endsWith('index.html'))?.data.toString()).toBe('<h1>Hallo</h1>\n');
    expect(entries.find((entry) => entry.name.endsWith('home.html'))?.linkname).toBe('index.html');
  });

  it('skips links out of the tree and special files, and says which and why', async () => {
    await mkdir(join(dir, 'sub'));
    await symlink('/etc/passwd', join(dir, 'passwd'));
    await symlink('../../etc', join(dir, 'sub/up'));
    await symlink('../index.html', join(dir, 'sub/ok'));
    await writeFile(join(dir, 'index.html'), 'x');
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const plan = await planTree(dir, limits);
    expect(plan.skipped).toEqual([
      { path: 'passwd', reason: 'link-outside-tree' },
      { path: 'pipe', reason: 'special-file' },
      { path: 'sub/up', reason: 'link-outside-tree' },
    ]);
    expect(plan.entries.map((entry) => entry.path)).toEqual(['index.html', 'sub', 'sub/ok']);
  });

  it('refuses a tree over the file-count or byte cap', async () => {
    for (const name of ['a', 'b', 'c']) await writeFile(join(dir, name), '12345');
    await expect(planTree(dir, { maxFiles: 2, maxBytes: 100 })).rejects.toMatchObject({ reason: 'too-large' });
    await expect(planTree(dir, { maxFiles: 10, maxBytes: 14 })).rejects.toBeInstanceOf(DeployError);
    await expect(planTree(dir, { maxFiles: 3, maxBytes: 15 })).resolves.toMatchObject({ files: 3, bytes: 15 });
  });

  it('refuses owner ids a tar header cannot hold', async () => {
    const plan = await planTree(dir, limits);
    expect(() => packTree(dir, plan, 'www.devplein-next-1', { uid: 0o1000000, gid: 0 })).toThrow(/does not fit/);
  });
});

describe('path checks', () => {
  it('keeps links that stay inside the tree', () => {
    expect(linkStaysInside('a/b', '../c')).toBe(true);
    expect(linkStaysInside('a/b', 'c/d')).toBe(true);
    expect(linkStaysInside('a/b', '../../c')).toBe(false);
    expect(linkStaysInside('a', '..')).toBe(false);
    expect(linkStaysInside('a', '/www')).toBe(false);
    expect(linkStaysInside('a', '')).toBe(false);
  });

  it('accepts relative keep paths only', () => {
    expect(checkKeepPath('wp-content/uploads/')).toBe('wp-content/uploads');
    expect(checkKeepPath('.env')).toBe('.env');
    for (const bad of ['', '/etc', '../x', 'a/../b', 'a//b', './a', 'a\nb']) expect(() => checkKeepPath(bad), bad).toThrow(DeployError);
  });

  it('accepts absolute web roots below / only', () => {
    expect(checkWebRoot('/var/www/html/')).toBe('/var/www/html');
    for (const bad of ['/', '', 'www', '/www/../etc', '/www/./x', '/w w', '/a//b']) expect(() => checkWebRoot(bad), bad).toThrow(DeployError);
  });
});
