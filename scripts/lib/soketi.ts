import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureCachedNode } from './node-cache.ts';
import { soketiNode } from './release/node-runtime.ts';

/** What soketi needs to know to run one app on loopback. */
export interface SoketiLaunchOptions {
  port: number;
  /** UDP port of soketi's cluster discovery; every instance on the machine needs its own. */
  clusterPort: number;
  /** Port of soketi's /usage endpoint; every instance on the machine needs its own. */
  metricsPort: number;
  /** App id, key and secret: soketi JSON.parses env values, so they must not look like numbers. */
  appId: string;
  key: string;
  secret: string;
  /** How long soketi lets clients go on at shutdown (its default is 3000 ms). */
  shutdownGracePeriodMs?: number;
}

/** A ready-to-spawn soketi command: `spawn(command, args, { env: { ...process.env, ...env } })`. */
export interface SoketiLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** A temporary directory holding soketi's config file; a good cwd for soketi (it reads `.env` from its cwd). */
  workDir: string;
}

const numericLooking = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * Builds the soketi command line so that it never sends traffic off the machine: every listener
 * on 127.0.0.1, cluster discovery unicast to 127.0.0.1 instead of broadcast to 255.255.255.255
 * (see NOTES.md). The discovery socket's bind address has no environment variable, so it goes
 * in a small config file (`cluster.address`). soketi runs on the Node the release bundle gives it
 * (soketiNode: its uWebSockets.js accepts websockets on Node 20 only, see node-runtime.ts), not on
 * the servers' Node.
 */
export async function soketiLaunch(options: SoketiLaunchOptions): Promise<SoketiLaunch> {
  for (const [name, value] of Object.entries({ appId: options.appId, key: options.key, secret: options.secret })) {
    if (value === '' || numericLooking.test(value) || value === 'true' || value === 'false' || value === 'null') {
      throw new Error(`soketi ${name} "${value}" would be changed by JSON.parse; use a non-numeric string`);
    }
  }
  const node = await ensureCachedNode(soketiNode);
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('@soketi/soketi/package.json'));
  const workDir = mkdtempSync(join(tmpdir(), 'devplein-soketi-'));
  const configFile = join(workDir, 'soketi.json');
  writeFileSync(configFile, JSON.stringify({ 'cluster.address': '127.0.0.1' }));
  return {
    command: node.binary,
    args: [join(packageDir, 'bin', 'server.js'), 'start', '--config', configFile],
    workDir,
    env: {
      SOKETI_HOST: '127.0.0.1',
      SOKETI_PORT: String(options.port),
      SOKETI_METRICS_HOST: '127.0.0.1',
      // soketi reads SOKETI_METRICS_SERVER_PORT; SOKETI_METRICS_PORT is set too for readers of NOTES.md.
      SOKETI_METRICS_SERVER_PORT: String(options.metricsPort),
      SOKETI_METRICS_PORT: String(options.metricsPort),
      SOKETI_CLUSTER_HOST: '127.0.0.1',
      SOKETI_CLUSTER_UNICAST_ADDRESSES: '127.0.0.1',
      SOKETI_CLUSTER_PORT: String(options.clusterPort),
      SOKETI_DEFAULT_APP_ID: options.appId,
      SOKETI_DEFAULT_APP_KEY: options.key,
      SOKETI_DEFAULT_APP_SECRET: options.secret,
      SOKETI_SHUTDOWN_GRACE_PERIOD: String(options.shutdownGracePeriodMs ?? 3000),
      // Hides the AWS SDK v2 end-of-support notice soketi's optional SQS queue prints at start.
      NODE_NO_WARNINGS: '1',
    },
  };
}
