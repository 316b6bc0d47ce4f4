/**
 * What the install.sh tests share: a bundle of install.sh's own files (no servers, no Node) and a
 * throwaway root with this host's accounts but devplein's, for `install.sh --root`.
 */
import { readFileSync, statSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../../..');

/** Lays out `bundle` (a folder named devplein-<version>) as a release has install.sh: bin/devplein, VERSION, deploy/, install.sh. */
export async function stageScriptBundle(bundle: string, version: string): Promise<void> {
  await mkdir(path.join(bundle, 'bin'), { recursive: true });
  await copyFile(path.join(repo, 'scripts/lib/release/devplein.sh'), path.join(bundle, 'bin/devplein'));
  await chmod(path.join(bundle, 'bin/devplein'), 0o755);
  await writeFile(path.join(bundle, 'VERSION'), `${version}\n`);
  await cp(path.join(repo, 'deploy'), path.join(bundle, 'deploy'), { recursive: true });
  await copyFile(path.join(repo, 'deploy/install.sh'), path.join(bundle, 'install.sh'));
  await chmod(path.join(bundle, 'install.sh'), 0o755);
}

/** Makes `root` with the host's passwd, group, shadow and gshadow less devplein's lines (enough for useradd --prefix). */
export async function rootWithHostAccounts(root: string): Promise<void> {
  await mkdir(path.join(root, 'etc'), { recursive: true });
  for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
    const lines = readFileSync(`/etc/${file}`, 'utf8').split('\n');
    await writeFile(path.join(root, 'etc', file), lines.filter((line) => !line.startsWith('devplein')).join('\n'), { mode: statSync(`/etc/${file}`).mode & 0o777 });
  }
}
