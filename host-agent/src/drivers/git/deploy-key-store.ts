/**
 * The projects' deploy keys, sealed at rest (issue 23). Each project gets one ed25519 key pair
 * (deploy-keys.ts, ssh-keygen) on first ask; the private half is never written in plain text where
 * it stays: it is sealed with AES-256-GCM under the agent's seal key and stored as
 * `{dir}/keys/{projectId}.json` (the public key beside it in the same file). The seal key is
 * `{dir}/seal.key` (32 random bytes, mode 0600), made on first use; both lie in the agent's
 * state folder (AGENT_DATA_DIR/deploy), which `devplein backup --role agent` archives, so a
 * restored dev server opens the same keys.
 *
 * For a fetch the private key is opened into a fresh private folder (0700, owned by the user git
 * runs as) as a 0600 file, and removed as soon as the fetch ends.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { keyFingerprint } from '../ssh/ssh-sessions.ts';
import { createDeployKey } from './deploy-keys.ts';

const sealedKeySchema = z.object({
  format: z.literal(1),
  publicKey: z.string().regex(/^ssh-ed25519 [A-Za-z0-9+/]+={0,2}( \S+)?$/),
  iv: z.string().min(1),
  tag: z.string().min(1),
  sealed: z.string().min(1),
});

/** Seals `plain` with a 32-byte key (AES-256-GCM, a random 12-byte IV), bound to `context`. */
export function seal(key: Buffer, plain: Buffer, context: string): { iv: string; tag: string; sealed: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), sealed: sealed.toString('base64') };
}

/** Opens what `seal` made; throws when the key, the context or the data is not the one sealed. */
export function unseal(key: Buffer, box: { iv: string; tag: string; sealed: string }, context: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(box.sealed, 'base64')), decipher.final()]);
}

export interface DeployKeyStoreOptions {
  /** The store's folder (AGENT_DATA_DIR/deploy). */
  dir: string;
  /** The comment in new public keys, e.g. `devplein-project-12@dev1`. */
  comment: (projectId: number) => string;
}

export interface PublicDeployKey {
  publicKey: string;
  fingerprint: string;
}

export class DeployKeyStore {
  private sealKey: Promise<Buffer> | undefined;
  private readonly making = new Map<number, Promise<PublicDeployKey>>();

  constructor(private readonly options: DeployKeyStoreOptions) {}

  /** Where the seal key lies (the docs name it; tests read the folder). */
  get sealKeyPath(): string {
    return join(this.options.dir, 'seal.key');
  }

  keyPath(projectId: number): string {
    return join(this.options.dir, 'keys', `${projectId}.json`);
  }

  /** The seal key, made on first use (written beside and renamed: never half a key). */
  private key(): Promise<Buffer> {
    this.sealKey ??= (async () => {
      await mkdir(this.options.dir, { recursive: true, mode: 0o711 });
      const existing = await readFile(this.sealKeyPath).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (existing) {
        if (existing.length !== 32) throw new Error(`${this.sealKeyPath} is not a 32-byte key`);
        return existing;
      }
      const key = randomBytes(32);
      const partial = `${this.sealKeyPath}.${randomBytes(4).toString('hex')}.partial`;
      await writeFile(partial, key, { mode: 0o600, flag: 'wx' });
      await rename(partial, this.sealKeyPath);
      return readFile(this.sealKeyPath);
    })();
    this.sealKey.catch(() => (this.sealKey = undefined));
    return this.sealKey;
  }

  private async read(projectId: number): Promise<z.infer<typeof sealedKeySchema> | undefined> {
    const text = await readFile(this.keyPath(projectId), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return text === undefined ? undefined : sealedKeySchema.parse(JSON.parse(text));
  }

  /** The project's public key when it has a pair (one being made is waited for), else undefined; never makes one. */
  async existingPublicKey(projectId: number): Promise<PublicDeployKey | undefined> {
    const running = this.making.get(projectId);
    if (running) return running;
    const stored = await this.read(projectId);
    return stored ? { publicKey: stored.publicKey, fingerprint: keyFingerprint(stored.publicKey) } : undefined;
  }

  /** The project's public key, making the pair on first ask (two asks at once make one). */
  publicKey(projectId: number): Promise<PublicDeployKey> {
    const running = this.making.get(projectId);
    if (running) return running;
    const work = (async () => {
      const stored = await this.read(projectId);
      if (stored) return { publicKey: stored.publicKey, fingerprint: keyFingerprint(stored.publicKey) };
      return this.make(projectId);
    })().finally(() => this.making.delete(projectId));
    this.making.set(projectId, work);
    return work;
  }

  private async make(projectId: number): Promise<PublicDeployKey> {
    const key = await this.key();
    const keysDir = join(this.options.dir, 'keys');
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    // ssh-keygen writes the private key in plain text: in a private folder, gone right after.
    const scratch = await mkdtemp(join(this.options.dir, '.new-key-'));
    try {
      const made = await createDeployKey(join(scratch, 'key'), this.options.comment(projectId));
      const plain = await readFile(made.privateKeyPath);
      const record = { format: 1 as const, publicKey: made.publicKey, ...seal(key, plain, `devplein-deploy-key:${projectId}`) };
      const partial = `${this.keyPath(projectId)}.partial`;
      await writeFile(partial, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      await rename(partial, this.keyPath(projectId));
      return { publicKey: made.publicKey, fingerprint: keyFingerprint(made.publicKey) };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** The project's private key in plain text (the caller zeroes it), or undefined when it has no key yet. */
  private async unsealed(projectId: number): Promise<Buffer | undefined> {
    const stored = await this.read(projectId);
    return stored && unseal(await this.key(), stored, `devplein-deploy-key:${projectId}`);
  }

  /** `work` with the private key's plain text (for the git runner, which writes it for one fetch); undefined when the project has no key. */
  async withPrivateKeyText<T>(projectId: number, work: (privateKey: string) => Promise<T>): Promise<T | undefined> {
    const plain = await this.unsealed(projectId);
    if (!plain) return undefined;
    const text = plain.toString('utf8');
    plain.fill(0);
    return work(text);
  }

  /**
   * Runs `work` with the project's private key opened into a 0600 file in a new private folder
   * under `runDir` (both owned by `owner` when given: the user ssh runs as), removed afterwards.
   * Undefined (and `work` not run) when the project has no key yet.
   */
  async withPrivateKey<T>(projectId: number, runDir: string, owner: { uid: number; gid: number } | undefined, work: (privateKeyPath: string) => Promise<T>): Promise<T | undefined> {
    const plain = await this.unsealed(projectId);
    if (!plain) return undefined;
    await mkdir(runDir, { recursive: true, mode: 0o711 });
    const folder = await mkdtemp(join(runDir, 'key-'));
    try {
      await chmod(folder, 0o700);
      const file = join(folder, 'id_ed25519');
      await writeFile(file, plain, { mode: 0o600 });
      if (owner) {
        await chown(file, owner.uid, owner.gid);
        await chown(folder, owner.uid, owner.gid);
      }
      plain.fill(0);
      return await work(file);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
}
