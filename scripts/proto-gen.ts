/**
 * Generates the TypeScript of the agent contract (proto/gen) from proto/devplein/agent/v1/*.proto.
 *
 *   tsx scripts/proto-gen.ts          buf lint, then buf generate into proto/gen
 *   tsx scripts/proto-gen.ts --check  buf lint, then generate into a temp dir and fail when it
 *                                     differs from proto/gen (the checked-in code drifted)
 *
 * Only local tools: node_modules/.bin/buf and the ts-proto plugin named in proto/buf.gen.yaml,
 * so it works without any network.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Repository root: buf.gen.yaml's paths are relative to it. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const bufBinary = path.join(repoRoot, 'node_modules', '.bin', 'buf');
const template = 'proto/buf.gen.yaml';
const generatedDir = path.join(repoRoot, 'proto', 'gen');

async function runBuf(args: string[]): Promise<void> {
  try {
    await execFileAsync(bufBinary, args, { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    const output = [failure.stdout, failure.stderr].filter(Boolean).join('\n').trim();
    throw new Error(`buf ${args.join(' ')} failed:\n${output || failure.message}`, { cause: error });
  }
}

/** Runs `buf lint` over the proto module (rules in proto/buf.yaml). */
export async function lintProto(): Promise<void> {
  await runBuf(['lint', 'proto']);
}

/**
 * Generates the TypeScript. With `baseDir` the files land in `<baseDir>/proto/gen` (buf's
 * --output prefix) instead of the repository's proto/gen.
 */
export async function generateProto(baseDir?: string): Promise<void> {
  await runBuf(['generate', '--template', template, ...(baseDir ? ['--output', baseDir] : [])]);
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), relative)));
    else files.push(relative);
  }
  return files.sort();
}

/** Compares two directory trees file by file; returns one line per difference. */
export async function compareTrees(expectedDir: string, actualDir: string): Promise<string[]> {
  const expected = await listFiles(expectedDir);
  const actual = await listFiles(actualDir);
  const differences: string[] = [];
  for (const file of expected) {
    if (!actual.includes(file)) {
      differences.push(`missing in proto/gen: ${file}`);
      continue;
    }
    const [want, have] = await Promise.all([
      readFile(path.join(expectedDir, file)),
      readFile(path.join(actualDir, file)),
    ]);
    if (!want.equals(have)) differences.push(`differs: proto/gen/${file}`);
  }
  for (const file of actual) {
    if (!expected.includes(file)) differences.push(`not generated (stale): proto/gen/${file}`);
  }
  return differences;
}

/** Generates into a temp dir and returns the differences with the checked-in proto/gen. */
export async function checkProtoDrift(): Promise<string[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'devplein-proto-'));
  try {
    await generateProto(scratch);
    return await compareTrees(path.join(scratch, 'proto', 'gen'), generatedDir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  await lintProto();
  console.log('buf lint: ok');
  if (!check) {
    await generateProto();
    console.log('generated proto/gen');
    return 0;
  }
  const differences = await checkProtoDrift();
  if (differences.length === 0) {
    console.log('proto/gen is up to date');
    return 0;
  }
  console.error(`proto/gen is out of date with the .proto files; run npm run proto:gen\n  ${differences.join('\n  ')}`);
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
