import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One entry of Vite's build manifest (dist/.vite/manifest.json, `build.manifest: true`). */
export interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  /** Manifest keys of the chunks this one imports statically (the browser fetches them with it). */
  imports?: string[];
  /** Manifest keys of the chunks this one may import later (lazy pages). */
  dynamicImports?: string[];
  css?: string[];
}

/** Manifest key (a source path relative to the web root, or `_name-hash.js` for a shared chunk) → chunk. */
export type ViteManifest = Record<string, ManifestChunk>;

/** What the browser downloads for a set of chunks: output file names (relative to dist), JS and CSS apart. */
export interface ChunkFiles {
  js: string[];
  css: string[];
}

export function readViteManifest(distDir: string): ViteManifest {
  return JSON.parse(readFileSync(path.join(distDir, '.vite', 'manifest.json'), 'utf8')) as ViteManifest;
}

/** The manifest key of the app's entry (index.html); throws unless there is exactly one. */
export function entryKey(manifest: ViteManifest): string {
  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry === true);
  if (entries.length !== 1 || entries[0] === undefined) throw new Error(`expected one entry chunk in the manifest, found ${entries.length}`);
  return entries[0];
}

/**
 * The files the browser loads for the chunks `keys`: each chunk, everything it imports statically
 * (transitively: Vite preloads those together with it) and their CSS. Dynamic imports are left out.
 */
export function chunkFiles(manifest: ViteManifest, keys: readonly string[]): ChunkFiles {
  const js = new Set<string>();
  const css = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (chunk === undefined) throw new Error(`the manifest has no chunk ${key}`);
    if (chunk.file.endsWith('.js')) js.add(chunk.file);
    for (const file of chunk.css ?? []) css.add(file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return { js: [...js], css: [...css] };
}
