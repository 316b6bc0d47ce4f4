/*
 * The release's checksum and detached signature. The signature is OpenSSH's (`ssh-keygen -Y`):
 * every Debian server has ssh-keygen, a school already knows how to keep an SSH key, and the
 * verifier needs only an allowed_signers line with the public key (docs/operations.md, "Release
 * bundle").
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The signature namespace: a signature for anything else (a git commit, a file of another program) is not a release signature. */
export const SIGNATURE_NAMESPACE = 'devplein-release';

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Writes `<file>.sha256` in the format `sha256sum -c` reads; returns its path. */
export async function writeChecksum(file: string): Promise<string> {
  const checksumFile = `${file}.sha256`;
  await writeFile(checksumFile, `${await sha256(file)}  ${path.basename(file)}\n`);
  return checksumFile;
}

/**
 * Signs `file` with the SSH key at `keyFile` (a private key, or a public key whose private half
 * is in the ssh-agent) into `<file>.sig`; returns its path.
 */
export async function signFile(file: string, keyFile: string): Promise<string> {
  await run('ssh-keygen', ['-q', '-Y', 'sign', '-n', SIGNATURE_NAMESPACE, '-f', keyFile, file]);
  return `${file}.sig`;
}
