import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where uploaded course files live: one file per storage key under a directory of the data dir. */
export interface CourseFileStore {
  put(key: string, data: Buffer): Promise<void>;
  read(key: string): Promise<Buffer>;
  remove(key: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-]{8,128}$/;

function pathOf(dir: string, key: string): string {
  // Keys are made by us (random ids); checking them keeps any path outside `dir` unreachable.
  if (!KEY.test(key)) throw new Error('invalid storage key');
  return path.join(dir, key);
}

export function createCourseFileStore(dir: string): CourseFileStore {
  return {
    async put(key, data) {
      await mkdir(dir, { recursive: true });
      await writeFile(pathOf(dir, key), data, { mode: 0o600 });
    },
    read: (key) => readFile(pathOf(dir, key)),
    async remove(key) {
      await rm(pathOf(dir, key), { force: true });
    },
  };
}
