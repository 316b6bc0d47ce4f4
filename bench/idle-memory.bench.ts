/**
 * Idle memory of the control plane and the host agent, after start and a little use (three
 * students sign in and open the websites, levels and dockers pages twice), no forced GC, no
 * heap flags. Side by side in one run:
 *   - the control plane as `npm start` runs it (tsx, development, DEV_LOGIN, embedded PGlite);
 *   - tsx, NODE_ENV=production, PostgreSQL (DATABASE_URL), with a tsx agent;
 *   - compiled (`npm run build:servers`, plain node), production, PostgreSQL, with a compiled agent;
 *   - compiled, production, embedded PGlite (what PGlite costs).
 * Prints RSS, heapUsed and external per variant (heap figures from the process's own /metrics)
 * and the Chromium processes' PSS apart. Goals (issue 19): control plane idle ≤ 120 MB, agent ≤ 100 MB.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { agentLinkEnv, makeTestCerts, startTestAgent, type TestAgent } from '../tests/support/services/agent.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { findFreePort } from '../tests/support/clients/ports.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { chromiumMemory, heapFromMetrics, processMemory } from './lib/process-memory.ts';
import { startBenchSchoolProvider } from './lib/school-provider.ts';
import { repoRoot } from '../scripts/lib/run.ts';

const STUDENTS = ['student@devplein.test', 'ontwikkelaar@devplein.test', 'r.dekker@student.devplein.test'];
const PAGES = ['/api/user', '/api/sites', '/api/level/categories/index', '/api/user/dockers'];
const SETTLE_MS = 3_000;

interface Variant {
  name: string;
  compiled: boolean;
  production: boolean;
  pglite: boolean;
  /** Link to an agent of the same build (tsx or compiled) and measure it too. */
  withAgent: boolean;
}

const variants: Variant[] = [
  { name: 'npm start (tsx, development, PGlite)', compiled: false, production: false, pglite: true, withAgent: false },
  { name: 'tsx, production, PostgreSQL', compiled: false, production: true, pglite: false, withAgent: true },
  { name: 'compiled, production, PostgreSQL', compiled: true, production: true, pglite: false, withAgent: true },
  { name: 'compiled, production, PGlite', compiled: true, production: true, pglite: true, withAgent: false },
];

interface Reading {
  variant: string;
  process: 'control plane' | 'agent';
  rssMb: number;
  heapUsedMb?: number;
  externalMb?: number;
}

/** The little use; returns the answers' statuses with their counts ("200×24"), to show the sign-ins worked. */
async function littleUse(url: string): Promise<string> {
  const statuses = new Map<number, number>();
  const count = async (response: Response) => {
    await response.arrayBuffer();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  };
  await count(await fetch(`${url}/`));
  for (const email of STUDENTS) {
    const session = new HttpSession(url);
    await count(await session.signIn(email));
    for (let round = 0; round < 2; round++) {
      for (const page of PAGES) await count(await session.api('GET', page));
    }
  }
  return [...statuses].map(([status, times]) => `${status}×${times}`).join(' ');
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build:servers'], { cwd: repoRoot, stdio: 'inherit' });
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-idle-'));
  const database = await startBenchDatabase('devplein_bench_idle');
  await database.knex.destroy();
  const provider = await startBenchSchoolProvider();
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  const readings: Reading[] = [];
  const chromiumLines: string[] = [];
  const statusLines: string[] = [];
  try {
    for (const variant of variants) {
      const dataDir = path.join(workDir, `data-${readings.length}`);
      if (variant.pglite) {
        // As `npm start` does: the embedded database migrated and seeded with the demo data first.
        execFileSync(process.execPath, ['--import', 'tsx', '--conditions=development', 'control-plane/src/db/seed-cli.ts', '--if-empty'], {
          cwd: repoRoot,
          env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
          stdio: 'ignore',
        });
      }
      let agent: TestAgent | undefined;
      const agentMetricsPort = await findFreePort();
      if (variant.withAgent) {
        agent = await startTestAgent({
          certDir: certs.dir,
          compiled: variant.compiled,
          env: { NODE_ENV: variant.production ? 'production' : 'development', LOG_LEVEL: 'warn', AGENT_METRICS_LISTEN: `127.0.0.1:${agentMetricsPort}`, AGENT_DOCKER_NETWORK: `devplein-bench-idle-${process.pid}` },
        }).catch(async () =>
          // LOG_LEVEL=warn hides the "listening" line the helper waits for: info then.
          startTestAgent({
            certDir: certs.dir,
            compiled: variant.compiled,
            env: { NODE_ENV: variant.production ? 'production' : 'development', AGENT_METRICS_LISTEN: `127.0.0.1:${agentMetricsPort}`, AGENT_DOCKER_NETWORK: `devplein-bench-idle-${process.pid}` },
          }),
        );
      }
      const metricsPort = await findFreePort();
      const app = await startControlPlane({
        databaseUrl: variant.pglite ? '' : database.url,
        compiled: variant.compiled,
        env: {
          NODE_ENV: variant.production ? 'production' : 'development',
          ...(variant.production ? { ...provider.env, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), REALTIME_SECRET: 'bench-realtime-secret-0123456789' } : {}),
          ...(agent ? agentLinkEnv(agent.address, certs) : {}),
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          THUMBNAIL_CRON: 'off',
          METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
        },
      });
      try {
        statusLines.push(`  answers of the little use (${variant.name}): ${await littleUse(app.url)}`);
        await delay(SETTLE_MS);
        const cp = await processMemory(app.pid());
        const cpHeap = await heapFromMetrics(`http://127.0.0.1:${metricsPort}/metrics`);
        readings.push({ variant: variant.name, process: 'control plane', rssMb: cp?.rssMb ?? NaN, ...cpHeap });
        if (agent) {
          const ag = await processMemory(agent.pid());
          const agHeap = await heapFromMetrics(`http://127.0.0.1:${agentMetricsPort}/metrics`);
          readings.push({ variant: variant.name, process: 'agent', rssMb: ag?.rssMb ?? NaN, ...agHeap });
          const chromium = await chromiumMemory(agent.pid());
          chromiumLines.push(`  chromium below the agent (${variant.name}), apart: ${chromium.processes} processes, PSS ${chromium.pssMb} MB`);
        }
      } finally {
        await app.stop();
        await agent?.stop();
      }
    }
  } finally {
    await provider.close();
    await database.stop();
    await rm(workDir, { recursive: true, force: true });
  }

  console.log(`\nidle after start and a little use (${STUDENTS.length} students × pages ×2, ${SETTLE_MS / 1000} s settle, no forced GC):`);
  for (const reading of readings) {
    const heap = reading.heapUsedMb === undefined ? '' : `   heapUsed ${String(reading.heapUsedMb).padStart(4)} MB   external ${String(reading.externalMb).padStart(4)} MB`;
    console.log(`  ${reading.process.padEnd(13)} ${reading.variant.padEnd(38)} RSS ${String(reading.rssMb).padStart(4)} MB${heap}`);
  }
  for (const line of [...chromiumLines, ...statusLines]) console.log(line);
}

await main();
