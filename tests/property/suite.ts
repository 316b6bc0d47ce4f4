/**
 * One test file's worth of property tests: a stack of its own, then one test per endpoint (its
 * RUNS generated requests, then the invariants: agent calls, rows, files, the process alive).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRoutes } from '../support/fixtures/route-table.ts';
import { formatReport, runEndpoint, SEED, startPropertyStack, type EndpointSpec, type PropertyStack } from './harness.ts';
import { agentCallProblems, databaseProblems, fileStoreProblems } from './invariants.ts';

/** Per endpoint: 10,000 requests at a few hundred a second, with fixtures; generous for a loaded machine. */
const ENDPOINT_TIMEOUT_MS = 15 * 60_000;

async function processProblems(stack: PropertyStack): Promise<string[]> {
  const pid = stack.hosting.app.pid();
  try {
    if (pid === undefined) throw new Error('no pid');
    process.kill(pid, 0);
  } catch {
    return [`the control plane process is gone:\n${stack.hosting.app.output().slice(-3000)}`];
  }
  const health = await stack.client('admin').send('GET', '/healthz', { kind: 'none' });
  return health.status === 200 ? [] : [`GET /healthz answered ${health.status} after the runs`];
}

export function describeEndpoints(title: string, specs: readonly EndpointSpec[]): void {
  describe(title, () => {
    let stack: PropertyStack;
    const routes = new Map(writeRoutes().map((route) => [route.key, route]));

    beforeAll(async () => {
      stack = await startPropertyStack();
    }, 120_000);

    afterAll(async () => {
      await stack?.stop();
    });

    for (const spec of specs) {
      it(spec.route, async () => {
        const route = routes.get(spec.route);
        if (!route) throw new Error(`${spec.route} is not a write route of the control plane (any more)`);
        stack.takeAgentCalls();
        const report = await runEndpoint(stack, spec, route, SEED);
        console.log(formatReport(report));
        const problems = [
          ...report.failures,
          ...agentCallProblems(stack.takeAgentCalls(), stack.siteDomain),
          ...(await databaseProblems(stack.knex, stack.siteDomain)),
          ...(await fileStoreProblems(stack.knex, stack.root, stack.dataDir)),
          ...(await processProblems(stack)),
        ];
        expect(problems, `seed ${report.seed} (PROPERTY_SEED=${report.seed} replays it)`).toEqual([]);
      }, ENDPOINT_TIMEOUT_MS);
    }
  });
}
