/**
 * Issue 37's measure of the control plane's layers: no two folders of control-plane/src import
 * each other (production files; the top-level files — the composition root, config.ts,
 * errors.ts, app-context.ts, http-context.ts — are imported by every room and import the rooms
 * they assemble, so they are not a folder). eslint.config.js's layer rules keep the usual
 * directions; this counts what they cannot see, a pair no rule names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const source = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../control-plane/src');
const relativeImport = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every production .ts file under `folder`, relative to control-plane/src. */
function productionFiles(folder: string): string[] {
  return readdirSync(path.join(source, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.relative(source, path.join(entry.parentPath, entry.name)));
}

/** The top folder of a path under control-plane/src, or null for a top-level file. */
const folderOf = (file: string): string | null => (file.includes(path.sep) ? file.split(path.sep)[0]! : null);

/** Which folders each folder imports (through relative imports of its production files). */
function folderImports(): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>();
  for (const file of productionFiles('.')) {
    const from = folderOf(file);
    if (!from) continue;
    for (const [, specifier] of readFileSync(path.join(source, file), 'utf8').matchAll(relativeImport)) {
      const target = path.relative(source, path.resolve(path.dirname(path.join(source, file)), specifier!));
      const to = target.startsWith('..') ? null : folderOf(target);
      if (to && to !== from) imports.set(from, (imports.get(from) ?? new Set()).add(to));
    }
  }
  return imports;
}

describe('the control plane\'s folders are layers (issue 37)', () => {
  it('no two folders of control-plane/src import each other', () => {
    const imports = folderImports();
    const mutual = [...imports].flatMap(([from, targets]) => [...targets].filter((to) => from < to && imports.get(to)?.has(from)).map((to) => `${from} ↔ ${to}`));
    expect(mutual).toEqual([]);
  });

  it('sees the imports it counts (queries → models, commands → queries, routes → commands)', () => {
    const imports = folderImports();
    expect(imports.get('queries')?.has('models')).toBe(true);
    expect(imports.get('commands')?.has('queries')).toBe(true);
    expect(imports.get('routes')?.has('commands')).toBe(true);
  });
});
