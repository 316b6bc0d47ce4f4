import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyPackages, notNeededAtRunTime, productionClosure, resolveInLockfile, type Lockfile } from './production-tree.ts';

/**
 * A workspace `app` that needs `a` (which needs `shared` 2, nested under it, and `@types/a`) and
 * `shared` 1 hoisted; `b` is optional and only in the lockfile; `dev-only` is nobody's.
 */
const lockfile: Lockfile = {
  packages: {
    '': { name: 'root' },
    app: { name: 'app', dependencies: { a: '^1' } },
    'node_modules/a': { version: '1.0.0', dependencies: { shared: '^2', '@types/a': '*' }, optionalDependencies: { b: '*' } },
    'node_modules/a/node_modules/shared': { version: '2.0.0' },
    'node_modules/shared': { version: '1.0.0', peerDependencies: { a: '*', missing: '*' }, peerDependenciesMeta: { missing: { optional: true } } },
    'node_modules/b': { version: '1.0.0', optionalDependencies: {} },
    'node_modules/@types/a': { version: '1.0.0' },
    'node_modules/dev-only': { version: '1.0.0', dev: true },
    'node_modules/@devplein/app': { link: true, resolved: 'app' },
  },
};

describe('resolveInLockfile', () => {
  it('finds a package as node does: the nearest node_modules first, then up to the root', () => {
    expect(resolveInLockfile(lockfile, 'node_modules/a', 'shared')).toBe('node_modules/a/node_modules/shared');
    expect(resolveInLockfile(lockfile, 'app', 'shared')).toBe('node_modules/shared');
    expect(resolveInLockfile(lockfile, 'node_modules/a/node_modules/shared', 'b')).toBe('node_modules/b');
    expect(resolveInLockfile(lockfile, 'app', 'nowhere')).toBeUndefined();
  });
});

describe('productionClosure', () => {
  it('takes dependencies and installed optional and peer ones, never type packages', () => {
    expect(productionClosure(lockfile, [{ from: 'app', name: 'a' }], () => true)).toEqual(['node_modules/a', 'node_modules/a/node_modules/shared', 'node_modules/b']);
    expect(productionClosure(lockfile, [{ from: 'app', name: 'a' }], (lockPath) => lockPath !== 'node_modules/b')).toEqual(['node_modules/a', 'node_modules/a/node_modules/shared']);
    // A peer dependency is followed (shared 1 needs a), an optional peer that is missing is not an error.
    expect(productionClosure(lockfile, [{ from: '', name: 'shared' }], () => false)).toEqual(['node_modules/a', 'node_modules/a/node_modules/shared', 'node_modules/shared']);
  });

  it('refuses a missing dependency and a workspace link', () => {
    expect(() => productionClosure(lockfile, [{ from: 'app', name: 'nowhere' }], () => true)).toThrow(/nowhere \(needed by app\) is not in package-lock.json/);
    expect(() => productionClosure(lockfile, [{ from: '', name: '@devplein/app' }], () => true)).toThrow(/workspace link/);
  });
});

describe('copyPackages', () => {
  it('copies each package without its node_modules, TypeScript, source maps and a node-gyp build', async () => {
    const source = await mkdtemp(path.join(os.tmpdir(), 'production-tree-'));
    const target = path.join(source, 'out');
    try {
      const files = {
        'node_modules/a/package.json': '{}',
        'node_modules/a/index.js': '',
        'node_modules/a/index.d.ts': '',
        'node_modules/a/index.js.map': '',
        'node_modules/a/binding.gyp': '',
        'node_modules/a/build/Release/a.node': '',
        'node_modules/a/lib/build/compiled.js': '',
        'node_modules/a/node_modules/shared/index.js': '',
      };
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(source, file)), { recursive: true });
        await writeFile(path.join(source, file), text);
      }
      await copyPackages(source, target, ['node_modules/a'], notNeededAtRunTime({ keepNativeBuilds: false }));
      const copied = (await readdir(path.join(target, 'node_modules/a'), { recursive: true })).sort();
      expect(copied).toEqual(['binding.gyp', 'index.js', 'lib', 'lib/build', 'lib/build/compiled.js', 'package.json']);
    } finally {
      await rm(source, { recursive: true, force: true });
    }
  });
});
