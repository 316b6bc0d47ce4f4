/*
 * `npm test`: everything that must hold before a change lands, in order, stopping at the first
 * failure: system programs → type-check → lint → proto drift → web build → vitest (unit,
 * integration and browser tests; extra arguments go to vitest, e.g. `npm test -- tests/e2e`) →
 * the operations tests (tests/ops, vitest.ops.config.ts: fresh Debian 12 and 13 servers booted
 * with systemd, install.sh, the units as shipped, upgrade; only when no vitest arguments are given).
 *
 * It runs itself on the release bundle's Node (24, scripts/lib/server-node.ts) with that Node first
 * on PATH, so vitest, its workers and every server, command and test they start run there too
 * (soketi on its own Node 20, scripts/lib/soketi.ts); the machine's Node only starts this script.
 *
 * TEST_SKIP=typecheck,lint,... skips steps by key while iterating locally (keys: system, native,
 * typecheck, lint, proto, build, vitest, ops). TEST_SKIP_SYSTEM_DEPS=1 checks system programs without installing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureSystemDependencies, testSystemDependencies } from '../tests/support/services/system-deps.ts';
import { rebuildNativeAddonsForThisNode } from './lib/native-addons.ts';
import { bin, formatDuration, heading, repoRoot, runCommand } from './lib/run.ts';
import { runOnServerNode } from './lib/server-node.ts';

await runOnServerNode();

interface Step {
  key: string;
  title: string;
  /** Resolves with an exit code (0 = ok), or 'skipped'. */
  run: () => Promise<number | 'skipped'>;
}

interface Outcome {
  step: Step;
  result: 'ok' | 'failed' | 'skipped' | 'not run';
  ms: number;
}

const vitestArgs = process.argv.slice(2);
/** Generated requests per write endpoint in `npm test` (tests/property; their own default is 10,000). */
const NPM_TEST_PROPERTY_RUNS = 1_000;
const skipped = new Set((process.env.TEST_SKIP ?? '').split(',').map((key) => key.trim()).filter(Boolean));
const summaryDir = mkdtempSync(join(tmpdir(), 'devplein-test-'));
const summaryFile = join(summaryDir, 'summary.json');
const opsSummaryFile = join(summaryDir, 'ops-summary.json');

// Ctrl-C reaches the running child too (same process group); let it stop, then stop here.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
  });
}

async function sequence(...commands: Array<() => Promise<number>>): Promise<number> {
  let worst = 0;
  for (const command of commands) {
    const code = await command();
    if (code !== 0 && worst === 0) worst = code;
    if (interrupted) break;
  }
  return worst;
}

const steps: Step[] = [
  {
    key: 'system',
    title: 'System programs (Chromium, PostgreSQL, Docker, Caddy, …)',
    run: async () => {
      try {
        ensureSystemDependencies(testSystemDependencies, { skipInstall: process.env.TEST_SKIP_SYSTEM_DEPS === '1' });
        return 0;
      } catch (error) {
        console.error(error instanceof Error ? error.message : String(error));
        return 1;
      }
    },
  },
  {
    key: 'native',
    title: `Native addons built for Node ${process.versions.node} (ssh2, cpu-features)`,
    run: async () => {
      const outcome = await rebuildNativeAddonsForThisNode(repoRoot);
      return outcome.failed.length === 0 ? 0 : 1;
    },
  },
  {
    key: 'typecheck',
    title: 'Type-check (tsc: root and web)',
    // Both projects, so one run shows every type error.
    run: () =>
      sequence(
        () => runCommand(bin('tsc'), ['-p', 'tsconfig.json']),
        () => runCommand(bin('tsc'), ['-p', 'web/tsconfig.json']),
      ),
  },
  { key: 'lint', title: 'Lint (eslint)', run: () => runCommand(bin('eslint'), ['.']) },
  {
    key: 'proto',
    title: 'Proto: generated code matches the .proto files',
    run: async () => {
      if (!existsSync(join(repoRoot, 'scripts', 'proto-gen.ts'))) {
        console.log('scripts/proto-gen.ts does not exist yet: nothing to check');
        return 'skipped';
      }
      return runCommand(bin('tsx'), ['scripts/proto-gen.ts', '--check']);
    },
  },
  {
    key: 'build',
    title: 'Build the web app (the browser tests use web/dist)',
    run: () => runCommand('npm', ['run', 'build', '-w', '@devplein/web']),
  },
  {
    key: 'vitest',
    title: `Tests (vitest run${vitestArgs.length ? ` ${vitestArgs.join(' ')}` : ''})`,
    run: () =>
      runCommand(bin('vitest'), ['run', ...vitestArgs], {
        // The property tests send 1,000 generated requests per write endpoint here (a new seed
        // each run); the full 10,000 per endpoint (~16 min on a quiet 2-core machine, double
        // that under load) run with `npm run test:property`, outside the CI time budget.
        env: { ...process.env, PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? String(NPM_TEST_PROPERTY_RUNS), DEVPLEIN_TEST_SUMMARY_FILE: summaryFile },
      }),
  },
  {
    key: 'ops',
    title: 'Operations tests (tests/ops: Debian 12 and 13 servers booted with systemd, install.sh, upgrade)',
    run: async () => {
      // A run of some vitest files (`npm test -- tests/e2e`) is a developer's subset: the servers are not part of it.
      if (vitestArgs.length > 0) {
        console.log('a subset of the tests was asked for: the operations tests are left out (npm run test:ops runs them alone)');
        return 'skipped';
      }
      if (process.getuid?.() !== 0) {
        console.error('The operations tests boot Debian servers (debootstrap, systemd-nspawn) and install devplein on them: run npm test as root, or TEST_SKIP=ops to leave them out.');
        return 1;
      }
      // One release for every file of the suite (each would otherwise build its own: a minute or two each).
      const releaseDir = join(summaryDir, 'release');
      const built = await runCommand('npm', ['run', '--silent', 'release', '--', '--out', releaseDir], { env: { ...process.env, DEVPLEIN_RELEASE_KEY: '' } });
      if (built !== 0) return built;
      const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
      return runCommand(bin('vitest'), ['run', '--config', 'vitest.ops.config.ts'], {
        env: { ...process.env, DEVPLEIN_TEST_SUMMARY_FILE: opsSummaryFile, TEST_RELEASE_TARBALL: join(releaseDir, `devplein-${version}.tar.gz`) },
      });
    },
  },
];

function printSummary(outcomes: Outcome[], totalMs: number): void {
  console.log(heading('Summary'));
  const width = Math.max(...outcomes.map((outcome) => outcome.step.title.length));
  for (const { step, result, ms } of outcomes) {
    const time = result === 'ok' || result === 'failed' ? formatDuration(ms) : '';
    console.log(`  ${step.title.padEnd(width)}  ${result.padEnd(8)} ${time}`);
  }
  console.log(`  ${'total'.padEnd(width)}  ${''.padEnd(8)} ${formatDuration(totalMs)}`);
}

interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  failures?: string[];
}

/** The counts of the vitest run and the operations run together (each writes its own file). */
function readTestCounts(): TestCounts | undefined {
  const runs = [summaryFile, opsSummaryFile].filter((file) => existsSync(file)).map((file) => JSON.parse(readFileSync(file, 'utf8')) as TestCounts);
  if (runs.length === 0) return undefined;
  return runs.reduce((sum, counts) => ({
    passed: sum.passed + counts.passed,
    failed: sum.failed + counts.failed,
    skipped: sum.skipped + counts.skipped,
    failures: [...(sum.failures ?? []), ...(counts.failures ?? [])],
  }));
}

/** The counts line of the test run, repeated last: CI reads the final `N passed, N failed` line. */
function countsLine(counts: TestCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}

async function main(): Promise<number> {
  const started = performance.now();
  const outcomes: Outcome[] = steps.map((step) => ({ step, result: 'not run', ms: 0 }));
  let failed: Outcome | undefined;
  for (const outcome of outcomes) {
    const { step } = outcome;
    if (skipped.has(step.key)) {
      outcome.result = 'skipped';
      console.log(heading(`${step.title}: skipped (TEST_SKIP)`));
      continue;
    }
    console.log(heading(step.title));
    const stepStarted = performance.now();
    const code = await step.run();
    outcome.ms = performance.now() - stepStarted;
    outcome.result = code === 'skipped' ? 'skipped' : code === 0 ? 'ok' : 'failed';
    if (outcome.result === 'failed' || interrupted) {
      failed = outcome;
      break;
    }
    if (outcome.result === 'ok') console.log(`-- ${step.title}: ok (${formatDuration(outcome.ms)})`);
  }
  printSummary(outcomes, performance.now() - started);
  const counts = readTestCounts();
  rmSync(summaryDir, { recursive: true, force: true });
  if (interrupted) {
    console.log('\nInterrupted.');
    return 130;
  }
  if (failed) {
    console.log(`\nFAILED at: ${failed.step.title}`);
    // Named again here because a CI log is often read from its tail only.
    for (const failure of counts?.failures ?? []) console.log(`  failed: ${failure}`);
    if (counts) console.log(countsLine(counts));
    return 1;
  }
  console.log('\nAll steps passed.');
  if (counts) console.log(countsLine(counts));
  return 0;
}

process.exitCode = await main();
