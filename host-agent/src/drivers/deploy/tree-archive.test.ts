import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarEntries } from '../docker/container-files.ts';
import { checkKeepPath, checkWebRoot, DeployError, linkResolvesInside, packTree, planTree, type TreeNode } from './tree-archive.ts';

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

  it('resolves link chains against the tree itself: two links that each look inside but lead to / together are skipped', async () => {
    // d1/d2/d3/l -> ../../.. is the tree's top; up -> d1/d2/d3/l/../../../.. is one above it, which
    // in the container is the web root's parent chain up to `/` (up/etc/passwd would be served).
    await mkdir(join(dir, 'd1/d2/d3'), { recursive: true });
    await symlink('../../..', join(dir, 'd1/d2/d3/l'));
    await symlink('d1/d2/d3/l/../../../..', join(dir, 'up'));
    // Harmless chains stay: a link to a link to a file, and a link through a link to a folder.
    await writeFile(join(dir, 'd1/page.html'), 'x');
    await symlink('d1/d2/d3/l/d1/page.html', join(dir, 'via-top'));
    await symlink('via-top', join(dir, 'again'));
    // A loop is never followed for ever.
    await symlink('loop-b', join(dir, 'loop-a'));
    await symlink('loop-a', join(dir, 'loop-b'));
    // A link through a link that is itself outside is outside.
    await symlink('/etc', join(dir, 'etc'));
    await symlink('etc/passwd', join(dir, 'passwd'));
    const plan = await planTree(dir, limits);
    expect(plan.skipped).toEqual([
      { path: 'etc', reason: 'link-outside-tree' },
      { path: 'loop-a', reason: 'link-outside-tree' },
      { path: 'loop-b', reason: 'link-outside-tree' },
      { path: 'passwd', reason: 'link-outside-tree' },
      { path: 'up', reason: 'link-outside-tree' },
    ]);
    expect(plan.entries.filter((entry) => entry.type === 'symlink').map((entry) => entry.path)).toEqual(['again', 'd1/d2/d3/l', 'via-top']);
  });

  it('copies nothing of a file swapped for a same-size symlink between the walk and the copy (the agent’s own files stay out)', async () => {
    // What the agent may read and a container must never get: deploy/seal.key in the agent's data folder.
    const agentOnly = join(dir, 'agent');
    await mkdir(agentOnly);
    await writeFile(join(agentOnly, 'seal.key'), 'GEHEIM-0123456789');
    const tree = join(dir, 'checkout');
    await mkdir(join(tree, 'css'), { recursive: true });
    await writeFile(join(tree, 'index.html'), 'x'.repeat(17));
    await writeFile(join(tree, 'css/seal.key'), 'y'.repeat(17));
    const plan = await planTree(tree, limits);
    // Whoever owns the checkout swaps a counted file for a link of the same size, after the walk.
    await rm(join(tree, 'index.html'));
    await symlink(join(agentOnly, 'seal.key'), join(tree, 'index.html'));
    const swapped = tarEntries(packTree(tree, plan, 'www.devplein-next-1', { uid: 1000, gid: 1000 }));
    await expect(swapped).rejects.toThrow(/index\.html changed in the checkout/);
    await expect(swapped).rejects.toBeInstanceOf(DeployError);
  });

  it('copies nothing through a folder swapped for a symlink between the walk and the copy', async () => {
    const agentOnly = join(dir, 'agent');
    await mkdir(agentOnly);
    await writeFile(join(agentOnly, 'seal.key'), 'GEHEIM-0123456789');
    const tree = join(dir, 'checkout');
    await mkdir(join(tree, 'css'), { recursive: true });
    await writeFile(join(tree, 'css/seal.key'), 'y'.repeat(17));
    const plan = await planTree(tree, limits);
    await rename(join(tree, 'css'), join(tree, 'css-old'));
    await symlink(agentOnly, join(tree, 'css'));
    await expect(tarEntries(packTree(tree, plan, 'www.devplein-next-1', { uid: 1000, gid: 1000 }))).rejects.toThrow(/css\/seal\.key changed in the checkout/);
  });

  it('copies nothing of a folder swapped for a symlink during the walk itself', async () => {
    const agentOnly = join(dir, 'agent');
    await mkdir(agentOnly);
    await writeFile(join(agentOnly, 'seal.key'), 'GEHEIM-0123456789');
    const tree = join(dir, 'checkout');
    await mkdir(join(tree, 'css'), { recursive: true });
    await writeFile(join(tree, 'css/site.css'), 'body{}');
    // The swap lands after the walk saw `css` as a folder and before it reads it.
    const swap = async (path: string) => {
      if (path !== 'css') return;
      await rename(join(tree, 'css'), join(tree, 'css-old'));
      await symlink(agentOnly, join(tree, 'css'));
    };
    const planned = planTree(tree, limits, { afterLstat: swap }).then(async (plan) => (await tarEntries(packTree(tree, plan, 'www.devplein-next-1', { uid: 1000, gid: 1000 }))).map((entry) => entry.name));
    await expect(planned).rejects.toThrow(/css changed in the checkout/);
  });

  it('a FIFO swapped in after the walk fails the copy instead of hanging it', async () => {
    await writeFile(join(dir, 'a'), '');
    const plan = await planTree(dir, limits);
    await rm(join(dir, 'a'));
    execFileSync('mkfifo', [join(dir, 'a')]);
    await expect(tarEntries(packTree(dir, plan, 'www.devplein-next-1', { uid: 1000, gid: 1000 }))).rejects.toThrow(/a changed in the checkout/);
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
    const inside = (path: string, target: string, more: Record<string, TreeNode> = {}) =>
      linkResolvesInside(path, new Map<string, TreeNode>([['a', { type: 'directory' }], ...Object.entries(more), [path, { type: 'symlink', target }]]));
    expect(inside('a/b', '../c')).toBe(true);
    expect(inside('a/b', 'c/d')).toBe(true);
    expect(inside('a/b', 'c//d/')).toBe(true);
    expect(inside('a/b', '../../c')).toBe(false);
    expect(inside('x', '..')).toBe(false);
    expect(inside('x', '/www')).toBe(false);
    expect(inside('x', '')).toBe(false);
    // Through another link: `..` after a link is taken from where that link leads.
    expect(inside('x', 'a/l/..', { 'a/l': { type: 'symlink', target: '..' } })).toBe(false);
    expect(inside('x', 'a/l//a', { 'a/l': { type: 'symlink', target: '..' } })).toBe(true);
    expect(inside('x', 'a/l/c', { 'a/l': { type: 'symlink', target: '/' } })).toBe(false);
    // A name the tree lacks counts as a plain folder; a chain longer than the limit as outside.
    expect(inside('x', 'later/../a')).toBe(true);
    const chain = Object.fromEntries(Array.from({ length: 45 }, (_, index) => [`c${index}`, { type: 'symlink', target: `c${index + 1}` } as TreeNode]));
    expect(inside('x', 'c0', chain)).toBe(false);
    expect(inside('x', 'c30', chain)).toBe(true);
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
