/**
 * The control plane's bundle (scripts/lib/server-bundle.ts) carries its npm dependencies: it
 * imports from node_modules only what it leaves there on purpose, and the packages it replaces
 * with stand-ins until their first use (pusher's fetch and encryption, objection's JSON-schema
 * validator) still work when used.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlPlaneBuildOptions } from '../../../scripts/lib/server-bundle.ts';

const root = path.resolve(import.meta.dirname, '../../..');
let workDir: string;

beforeAll(async () => {
  // Inside the repository (.tmp is ignored), so the entry resolves node_modules.
  await mkdir(path.join(root, '.tmp'), { recursive: true });
  workDir = await mkdtemp(path.join(root, '.tmp', 'server-bundle-'));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A program using the packages behind the stand-ins, as the control plane's dependencies do. */
const standInUser = `
import http from 'node:http';
import Pusher from 'pusher';
import { Model, ValidationError } from 'objection';

const requests = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    requests.push(JSON.parse(body));
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const pusher = new Pusher({
  appId: '1', key: 'key', secret: 'secret', host: '127.0.0.1', port: String(server.address().port), useTLS: false,
  encryptionMasterKeyBase64: Buffer.alloc(32, 1).toString('base64'),
});
await pusher.trigger('private-encrypted-x', 'event', { a: 1 });
server.close();

class Thing extends Model {
  static tableName = 'things';
  static jsonSchema = { type: 'object', required: ['at'], properties: { at: { type: 'string', format: 'date-time' } } };
}
let invalid;
try {
  Thing.fromJson({ at: 'gisteren' });
} catch (error) {
  invalid = error instanceof ValidationError ? error.type : String(error);
}
console.log(JSON.stringify({
  triggered: requests.length,
  encrypted: typeof JSON.parse(requests[0].data).ciphertext === 'string',
  invalid,
  valid: Thing.fromJson({ at: '2026-11-27T05:00:00Z' }).at,
}));
`;

describe('the control plane bundle', () => {
  it('imports from node_modules none of the control plane’s dependencies but those it leaves there', async () => {
    const dependencies = async (workspace: string) =>
      Object.keys((JSON.parse(await readFile(path.join(root, workspace, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
    const ours = new Set([...(await dependencies('control-plane')), ...(await dependencies('server-kit')), ...(await dependencies('contract')), ...(await dependencies('proto'))]);
    const result = await build({
      ...controlPlaneBuildOptions,
      entryPoints: [path.join(root, 'control-plane/src/main.ts')],
      outdir: path.join(workDir, 'main'),
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const imported = new Set(
      Object.values(result.metafile.outputs)
        .flatMap((output) => output.imports)
        .filter((entry) => entry.external)
        .map((entry) => entry.path.split('/').slice(0, entry.path.startsWith('@') ? 2 : 1).join('/'))
        .filter((name) => ours.has(name)),
    );
    // Loaded on demand: the development identity provider (its chunk) and qrcode through import();
    // sshpk and PGlite through createRequire, which is no import of the bundle.
    expect([...imported].sort()).toEqual(['oidc-provider', 'qrcode']);
  }, 60_000);

  it('loads the stand-ins’ packages on first use: pusher fetches and encrypts, objection validates', async () => {
    const entry = path.join(workDir, 'stand-in-user.mjs');
    await writeFile(entry, standInUser);
    await build({ ...controlPlaneBuildOptions, entryPoints: [entry], outdir: path.join(workDir, 'dist'), logLevel: 'silent' });
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(workDir, 'dist', 'stand-in-user.js')]);
    expect(JSON.parse(stdout)).toEqual({ triggered: 1, encrypted: true, invalid: 'ModelValidation', valid: '2026-11-27T05:00:00Z' });
  }, 60_000);
});
