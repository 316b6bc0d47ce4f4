/**
 * A project's deploy key (issue 23): an ed25519 key pair made with `ssh-keygen`, the private key
 * written with mode 0600 where the caller says (DeployKeyStore, deploy-key-store.ts, makes it in a
 * private scratch folder and keeps it only sealed), the public key line returned to show the members.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DeployKey {
  /** Where the private key is (OpenSSH format, mode 0600). */
  privateKeyPath: string;
  /** `ssh-ed25519 AAAA… comment`, one line without newline. */
  publicKey: string;
}

/**
 * Makes a new key pair at `privateKeyPath` (replacing one that is there) with `comment` in the
 * public key. The key is made in a temporary folder next to it and renamed into place, so a
 * crash never leaves half a key.
 */
export async function createDeployKey(privateKeyPath: string, comment: string): Promise<DeployKey> {
  if (!/^[A-Za-z0-9@._+-]{1,100}$/.test(comment)) throw new Error('deploy key comment: letters, digits and @._+- only');
  const staging = await mkdtemp(join(dirname(privateKeyPath), '.deploy-key-'));
  try {
    const stagedKey = join(staging, 'key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', stagedKey], { timeout: 30_000 });
    const publicKey = (await readFile(`${stagedKey}.pub`, 'utf8')).trim();
    await rename(stagedKey, privateKeyPath);
    return { privateKeyPath, publicKey };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The public key line of an existing private key (`ssh-keygen -y`). */
export async function publicKeyOf(privateKeyPath: string): Promise<string> {
  const { stdout } = await run('ssh-keygen', ['-y', '-f', privateKeyPath], { timeout: 30_000 });
  return stdout.trim();
}
