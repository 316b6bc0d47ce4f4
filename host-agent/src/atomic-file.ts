import { chmod, rename, rm, writeFile } from 'node:fs/promises';

let tempCounter = 0;

/**
 * Writes `target` atomically with `mode` (temp file beside it + rename): a crash leaves the old
 * or the new file, never half of one. The temp file has the mode from its creation.
 */
export async function writeFileAtomic(target: string, content: string, mode: number): Promise<void> {
  tempCounter += 1;
  const temp = `${target}.${process.pid}.${tempCounter}.tmp`;
  try {
    await writeFile(temp, content, { mode, flag: 'wx' });
    await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
