import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReleaseSigner } from './release-signer.ts';

const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIOn7nT0dT8sVhXgq1b0V3oYbq0m8mJ1kXx3xj6S3yQ9u';

describe('readReleaseSigner', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-signers-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads the first signer of the file install.sh writes, without its options', async () => {
    const file = path.join(dir, 'release-signers');
    await writeFile(file, `# devplein release signers\n\nrelease@school.test namespaces="devplein-release" ssh-ed25519 ${KEY}\nander@school.test namespaces="devplein-release" ssh-ed25519 ${KEY}\n`);
    expect(await readReleaseSigner(file)).toBe(`release@school.test ssh-ed25519 ${KEY}`);
  });

  it('gives nothing for a missing file or one without a signer line, and never a principal that would break the quoting', async () => {
    expect(await readReleaseSigner(path.join(dir, 'missing'))).toBeUndefined();
    const file = path.join(dir, 'odd');
    await writeFile(file, `# nothing\nit's namespaces="x" ssh-ed25519 ${KEY}\n`);
    expect(await readReleaseSigner(file)).toBeUndefined();
  });
});
